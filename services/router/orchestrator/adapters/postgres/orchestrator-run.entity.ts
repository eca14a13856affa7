import { DecimalType, Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';
import type { RouterToolCall } from '@dirigent/contracts';

/**
 * One run of an orchestration: the orchestrator model's decision (`agent_type`
 * `orchestrator`) or a delegated agent, with duration, model, tokens and cost.
 */
@Entity({ tableName: 'orchestrator_runs' })
@Index({ properties: ['guildId', 'at'] })
export class OrchestratorRun {
  @PrimaryKey({ type: 'uuid' })
  id: string;

  /** Shared by the decision and the runs it delegated. */
  @Property({ type: 'uuid' })
  @Index()
  orchestrationId: string;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  at: Date;

  @Property({ type: 'string', length: 20 })
  guildId: string;

  @Property({ type: 'string', length: 20, nullable: true })
  channelId: string | null = null;

  @Property({ type: 'string', length: 16 })
  trigger: string;

  @Property({ type: 'string', length: 64, nullable: true })
  agentId: string | null = null;

  @Property({ type: 'string', length: 20, nullable: true })
  inboundMessageId: string | null = null;

  @Property({ type: 'string', length: 16 })
  agentType: string;

  @Property({ type: 'string', length: 64 })
  agentName: string;

  @Property({ type: 'string', length: 16 })
  status: string;

  /** The user's text for the decision, the delegated task for a run. */
  @Property({ type: 'text' })
  input: string;

  @Property({ type: 'text' })
  output: string;

  @Property({ type: 'text', nullable: true })
  errorMessage: string | null = null;

  @Property({ type: 'integer' })
  durationMs: number;

  @Property({ type: 'string', length: 200, nullable: true })
  model: string | null = null;

  @Property({ type: 'integer', nullable: true })
  inputTokens: number | null = null;

  @Property({ type: 'integer', nullable: true })
  outputTokens: number | null = null;

  /** Null when the gateway did not report it. */
  @Property({ type: new DecimalType('number'), columnType: 'numeric(18,6)', nullable: true })
  costUsd: number | null = null;

  /** The whole orchestration's wall time (on every row of it). */
  @Property({ type: 'integer' })
  wallMs: number;

  @Property({ type: 'boolean' })
  cancelled: boolean;

  /** On the decision's row: the orchestrator model's skill tool calls (Migration20261128034000). */
  @Property({ type: 'json', nullable: true })
  toolCalls: RouterToolCall[] | null = null;
}
