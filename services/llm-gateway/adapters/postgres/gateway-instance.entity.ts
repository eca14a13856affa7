import { Entity, EntityRepositoryType, PrimaryKey, Property } from '@mikro-orm/core';
import { GatewayInstanceRepository } from './gateway-instance.repository';

/** A running gateway process and its last heartbeat. */
@Entity({ tableName: 'llm_gateway_instance', repository: () => GatewayInstanceRepository })
export class GatewayInstance {
  [EntityRepositoryType]?: GatewayInstanceRepository;

  @PrimaryKey({ type: 'uuid' })
  instanceId: string;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  startedAt: Date = new Date();

  @Property({ type: 'Date', columnType: 'timestamptz' })
  heartbeatAt: Date = new Date();
}
