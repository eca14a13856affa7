import { DecimalType, Entity, EntityRepositoryType, PrimaryKey, Property } from '@mikro-orm/core';
import { UsageEntryRepository } from './usage-entry.repository';

/** One row of the usage ledger: a call, what answered it and what it cost. */
@Entity({ tableName: 'llm_usage', repository: () => UsageEntryRepository })
export class UsageEntry {
  [EntityRepositoryType]?: UsageEntryRepository;

  @PrimaryKey({ type: 'uuid' })
  id: string;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  at: Date;

  @Property({ type: 'string', length: 64 })
  guildId: string;

  @Property({ type: 'string', length: 64, nullable: true })
  purpose: string | null = null;

  @Property({ type: 'string', length: 16 })
  kind: string;

  @Property({ type: 'boolean' })
  stream: boolean;

  @Property({ type: 'string', length: 200 })
  requestedModel: string;

  @Property({ type: 'string', length: 200, nullable: true })
  model: string | null = null;

  @Property({ type: 'string', length: 200, nullable: true })
  provider: string | null = null;

  @Property({ type: 'integer' })
  inputTokens: number;

  @Property({ type: 'integer' })
  outputTokens: number;

  @Property({ type: new DecimalType('number'), columnType: 'numeric(18,6)' })
  reservedUsd: number;

  @Property({ type: new DecimalType('number'), columnType: 'numeric(18,6)' })
  costUsd: number;

  @Property({ type: 'integer' })
  latencyMs: number;

  @Property({ type: 'string', length: 32 })
  outcome: string;

  @Property({ type: 'text', nullable: true })
  error: string | null = null;

  @Property({ type: 'json' })
  fallbacks: string[] = [];

  @Property({ type: 'integer' })
  attempts: number;
}
