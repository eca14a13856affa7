import { Entity, EntityRepositoryType, PrimaryKey, Property } from '@mikro-orm/core';
import { PurposePolicyRepository } from './purpose-policy.repository';

/** A run-time override of one purpose's route (over the configuration file's). */
@Entity({ tableName: 'llm_purpose_policy', repository: () => PurposePolicyRepository })
export class PurposePolicy {
  [EntityRepositoryType]?: PurposePolicyRepository;

  @PrimaryKey({ type: 'string', length: 64 })
  purpose: string;

  @Property({ type: 'string', length: 200 })
  model: string;

  @Property({ type: 'json' })
  fallbacks: string[] = [];

  @Property({ type: 'Date', columnType: 'timestamptz' })
  updatedAt: Date = new Date();
}
