import { EntityManager } from '@mikro-orm/postgresql';
import type { MessageCreated } from '@dirigent/contracts';
import { InboundStore, type InboundState, type OpenInbound } from '../../application/stores';
import { InboundRow } from './inbound.entity';

/** `router_inbound`. */
export class PostgresInbound extends InboundStore {
  constructor(private readonly em: EntityManager) {
    super();
  }

  async record(
    m: MessageCreated,
    eventId: string | undefined,
    at: Date,
    claimedBy?: string,
  ): Promise<InboundState> {
    const rows: { settled_at: Date | null; inserted: boolean }[] = await this.em
      .getConnection()
      .execute(
        `insert into "router_inbound" ("message_id", "guild_id", "channel_id", "event_id", "message", "received_at", "claimed_by")
         values (?, ?, ?, ?, ?, ?, ?)
         on conflict ("message_id") do update
           set "claimed_by" = coalesce("router_inbound"."claimed_by", excluded."claimed_by")
         returning "settled_at", (xmax = 0) as "inserted"`,
        [
          m.messageId,
          m.guildId,
          m.channelId,
          eventId ?? null,
          JSON.stringify(m),
          at,
          claimedBy ?? null,
        ],
      );
    const r = rows[0];
    if (r.inserted) return 'new';
    return r.settled_at ? 'settled' : 'open';
  }

  async settle(messageId: string, at: Date): Promise<void> {
    await this.em
      .fork()
      .nativeUpdate(InboundRow, { messageId, settledAt: null }, { settledAt: at });
  }

  async message(messageId: string): Promise<MessageCreated | null> {
    const r = await this.em.fork().findOne(InboundRow, { messageId });
    return r?.message ?? null;
  }

  async open(limit: number): Promise<OpenInbound[]> {
    const rows = await this.em
      .fork()
      .find(InboundRow, { settledAt: null }, { orderBy: { receivedAt: 'asc' }, limit });
    return rows.map((r) => ({
      message: r.message,
      ...(r.eventId ? { eventId: r.eventId } : {}),
      ...(r.claimedBy ? { claimedBy: r.claimedBy } : {}),
    }));
  }
}
