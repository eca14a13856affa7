import { EntityManager } from '@mikro-orm/postgresql';
import type { ReminderStatus, ReminderView } from '@dirigent/contracts';
import type { ReminderRequest } from '@dirigent/skills';
import { ReminderStore } from '../../application/reminders';
import { ReminderRow } from './reminder.entity';

const view = (r: ReminderRow): ReminderView => ({
  reminderId: r.reminderId,
  guildId: r.guildId,
  channelId: r.channelId,
  ...(r.userId ? { userId: r.userId } : {}),
  target: r.target,
  text: r.text,
  dueAt: r.dueAt.toISOString(),
  status: r.status,
  createdAt: r.createdAt.toISOString(),
});

/** `router_reminders`. */
export class PostgresReminders extends ReminderStore {
  constructor(private readonly em: EntityManager) {
    super();
  }

  async create(r: ReminderRequest): Promise<boolean> {
    const rows = await this.em
      .fork()
      .getConnection()
      .execute<{ reminder_id: string }[]>(
        `insert into "router_reminders" ("reminder_id", "guild_id", "channel_id", "user_id",
           "target", "text", "due_at", "status", "created_at")
         values (?, ?, ?, ?, ?, ?, ?, 'scheduled', ?)
         on conflict ("reminder_id") do nothing returning "reminder_id"`,
        [
          r.reminderId,
          r.guildId,
          r.channelId,
          r.userId ?? null,
          r.target,
          r.text,
          new Date(r.dueAt),
          new Date(r.createdAt),
        ],
      );
    return rows.length > 0;
  }

  async get(reminderId: string): Promise<ReminderView | null> {
    const r = await this.em.fork().findOne(ReminderRow, { reminderId });
    return r ? view(r) : null;
  }

  async scheduled(guildId?: string, userId?: string): Promise<ReminderView[]> {
    const rows = await this.em.fork().find(
      ReminderRow,
      {
        status: 'scheduled',
        ...(guildId ? { guildId } : {}),
        ...(userId ? { userId } : {}),
      },
      { orderBy: { dueAt: 'asc', reminderId: 'asc' } },
    );
    return rows.map(view);
  }

  async settle(reminderId: string, status: Exclude<ReminderStatus, 'scheduled'>, at: Date) {
    const n = await this.em
      .fork()
      .nativeUpdate(ReminderRow, { reminderId, status: 'scheduled' }, { status, settledAt: at });
    return n > 0;
  }
}
