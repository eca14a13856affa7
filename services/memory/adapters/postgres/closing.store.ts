import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { sql } from './sql';

/** How often a running close says it is alive. */
export const CLOSE_ALIVE_EVERY_MS = 1000;
/** A close silent for this long died with its process (a SIGKILLed replica). */
export const CLOSE_SILENT_MS = 4000;
/** Rows of dead closes are removed once they are this old. */
const DEAD_ROWS_AFTER_MS = 60_000;

/** A close recorded as running: it keeps saying so until {@link RunningClose.end}. */
export interface RunningClose {
  readonly id: string;
  end(): Promise<void>;
}

/**
 * The epoch closes running in any replica (table `memory_epoch_closing`): a close is
 * recorded before it reads its channel, renews `alive_at` while it runs and is removed when
 * it ends, so that a `forget` in any replica can wait for the closes that may have read the
 * user's messages, or others' naming them, and write their epoch after the forget looked for
 * epochs. A row silent for {@link CLOSE_SILENT_MS} is a close that died with its process.
 */
@Injectable()
export class ClosingStore {
  constructor(private readonly em: EntityManager) {}

  /** Records a close (committed at once, outside any transaction) and keeps it alive. */
  async begin(guildId: string, channelId: string): Promise<RunningClose> {
    const id = randomUUID();
    // One statement: the guild's rows of dead closes go as this one is recorded.
    await sql(
      this.em.fork(),
      `with dead as (
         delete from memory_epoch_closing
         where guild_id = ? and alive_at < now() - make_interval(secs => ?)
       )
       insert into memory_epoch_closing (id, guild_id, channel_id) values (?, ?, ?)`,
      [guildId, DEAD_ROWS_AFTER_MS / 1000, id, guildId, channelId],
    );
    const beat = setInterval(() => {
      void sql(this.em.fork(), `update memory_epoch_closing set alive_at = now() where id = ?`, [
        id,
      ]).catch(() => undefined);
    }, CLOSE_ALIVE_EVERY_MS);
    beat.unref();
    return {
      id,
      end: async () => {
        clearInterval(beat);
        await sql(this.em.fork(), `delete from memory_epoch_closing where id = ?`, [id]);
      },
    };
  }

  /**
   * How many closes of the guild are alive and have run for less than `withinMs` (a live
   * close taking longer than that is not waited for either).
   */
  async running(guildId: string, withinMs: number): Promise<number> {
    const [row] = await sql<{ n: string }>(
      this.em.fork(),
      `select count(*) as n from memory_epoch_closing
       where guild_id = ? and started_at > now() - make_interval(secs => ?)
         and alive_at > now() - make_interval(secs => ?)`,
      [guildId, withinMs / 1000, CLOSE_SILENT_MS / 1000],
    );
    return Number(row?.n ?? 0);
  }
}
