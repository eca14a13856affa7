import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/** One research persona's run for a decision. */
@Entity({ tableName: 'subagent_runs' })
export class SubagentRunRow {
  @PrimaryKey({ type: 'bigint', autoincrement: true }) id: string;
  @Property({ length: 64 }) decisionId: string;
  @Property({ length: 32 }) persona: string;
  @Property({ length: 32 }) lens: string;
  @Property({ length: 16 }) status: string;
  @Property() durationMs: number;
  @Property({ length: 200, nullable: true }) model: string | null = null;
  @Property({ type: 'double' }) costUsd = 0;
  @Property({ type: 'text' }) output = '';
}
