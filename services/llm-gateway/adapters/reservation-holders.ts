import { randomUUID } from 'node:crypto';
import { Logger, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayInstance } from './postgres/gateway-instance.entity';
import { GuildSpend } from './postgres/guild-spend.entity';
import { ReservationHolder } from './postgres/reservation-holder.entity';

/**
 * This gateway instance's identity and heartbeat, and the reaper of dead instances: the
 * reservations an instance held when it stopped heartbeating (a crash, a kill -9) are
 * released from the guilds' rows by whichever instance notices first. An instance
 * stalled longer than `staleMs` is treated as dead, which is why that bound is generous.
 */
export class ReservationHolders implements OnModuleInit {
  readonly instanceId = randomUUID();
  private readonly log = new Logger('llm-gateway:instances');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly em: EntityManager,
    private readonly heartbeatMs = 10_000,
    private readonly staleMs = 60_000,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.heartbeat();
    await this.reap().catch((e: Error) => this.log.warn(`reaping failed: ${e.message}`));
    this.timer = setInterval(() => {
      void this.heartbeat()
        .then(() => this.reap())
        .catch((e: Error) => this.log.warn(`heartbeat/reap failed: ${e.message}`));
    }, this.heartbeatMs);
    this.timer.unref();
  }

  heartbeat(): Promise<void> {
    return this.em.fork().getRepository(GatewayInstance).heartbeat(this.instanceId);
  }

  /** Releases the reservations of instances silent for `staleMs`; returns their ids. */
  reap(): Promise<string[]> {
    return this.em.fork().transactional(async (em) => {
      const before = new Date(Date.now() - this.staleMs);
      const dead = await em.getRepository(GatewayInstance).silentSince(before, this.instanceId);
      if (dead.length) await this.release(em, dead);
      return dead;
    });
  }

  /** At a clean stop (after draining): give back anything still held and leave. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.em.fork().transactional((em) => this.release(em, [this.instanceId]));
  }

  private async release(em: EntityManager, instanceIds: string[]): Promise<void> {
    await em.execute(`set local synchronous_commit = on`);
    const released = await em.getRepository(ReservationHolder).takeAll(instanceIds);
    for (const row of await em.getRepository(GuildSpend).lockInOrder(released)) {
      const r = released.find((x) => x.guildId === row.guildId && x.day === row.day)!;
      row.reservedMicros = Math.max(0, row.reservedMicros - r.micros);
    }
    await em.flush();
    await em.getRepository(GatewayInstance).delete(instanceIds);
  }
}
