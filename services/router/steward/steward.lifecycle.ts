import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { runProjection, type ProjectionRunner } from '@dirigent/event-store';
import { Messaging } from '@dirigent/messaging';
import { proposalProjection } from './adapters/postgres/proposal.projection';
import { ModChannels } from './application/mod-channels';
import { StewardDiscord } from './application/ports';

/** How often, and how far apart, a start asks the ingest for the guilds before giving up. */
const CATCH_UP_TRIES = 30;
const CATCH_UP_STEP_MS = 2000;

/**
 * Feeds the proposal read model while the router runs and, once at start, makes sure every
 * guild the ingest knows has its mod channel (a `guild.joined` published before this router's
 * consumer first existed is not delivered to it).
 */
@Injectable()
export class StewardLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('router:steward');
  private runner?: Pick<ProjectionRunner, 'stop' | 'reached'>;
  private stopped = false;

  constructor(
    private readonly messaging: Messaging,
    private readonly orm: MikroORM,
    private readonly discord: StewardDiscord,
    private readonly modChannels: ModChannels,
  ) {}

  /** Waits (a few seconds at most) until the read model holds the commits up to `seq`. */
  async caughtUp(seq: number): Promise<void> {
    if (seq > 0) await this.runner?.reached(seq, 5000);
  }

  private async catchUp() {
    for (let i = 0; i < CATCH_UP_TRIES && !this.stopped; i++) {
      const guilds = await this.discord.guildIds().catch(() => undefined);
      if (guilds) {
        for (const g of guilds) {
          if (this.stopped) return;
          await this.modChannels
            .ensure(g)
            .catch((e: Error) => this.log.warn({ guildId: g, err: e.message }, 'no mod channel'));
        }
        return;
      }
      await new Promise((r) => setTimeout(r, CATCH_UP_STEP_MS).unref());
    }
  }

  async onApplicationBootstrap() {
    void this.catchUp();
    this.runner = await runProjection(this.messaging, this.orm.em, proposalProjection, {
      log: {
        warn: (o, m) => this.log.warn({ ...o, msg: m }),
        error: (o, m) => this.log.error({ ...o, msg: m }),
      },
    });
  }

  async onApplicationShutdown() {
    this.stopped = true;
    await this.runner?.stop();
  }
}
