import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { MessageCreated } from '@dirigent/contracts';

/** A message the router took in: open until every agent's turn on it has run. */
@Entity({ tableName: 'router_inbound' })
export class InboundRow {
  @PrimaryKey({ length: 20 }) messageId: string;
  @Property({ length: 20 }) guildId: string;
  @Property({ length: 20 }) channelId: string;
  @Property({ length: 128, nullable: true }) eventId: string | null = null;
  @Property({ type: 'json' }) message: MessageCreated;
  @Property({ columnType: 'timestamptz' }) receivedAt: Date = new Date();
  @Property({ columnType: 'timestamptz', nullable: true }) settledAt: Date | null = null;
  /** Migration20261128140000_router_bursts: the burst the message interrupted. */
  @Property({ length: 64, nullable: true }) claimedBy: string | null = null;
}
