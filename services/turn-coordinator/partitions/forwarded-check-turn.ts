import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Subscription } from '@nats-io/nats-core';
import type { CheckTurnRequest } from '@dirigent/contracts';
import { Messaging, type PartitionLeases } from '@dirigent/messaging';
import type { CheckTurnResult } from '@dirigent/turn-domain';
import { CheckTurn } from '../application/check-turn';
import { PartitionOwnership } from './partitioned-consumers';

/** Between replicas only: check-turn forwarded to the replica serving the channel. */
export const forwardSubject = (replicaId: string) =>
  `dirigent.internal.turn-coordinator.${replicaId}.check`;

const FORWARD_TIMEOUT_MS = 2_000;

type Forwarded = { ok: true; data: CheckTurnResult } | { ok: false };

/**
 * check-turn on a partitioned replica: answered by the replica serving the channel, so that
 * the turn's anchor (the first check records the channel's latest message) is decided in
 * that replica's per-channel order, before any message observed after it — a replica that
 * does not serve the channel could record it after the agent's own reply and make the
 * delivery unmatchable. A channel this replica serves, an owner that does not answer (it
 * died; its lease is about to move) or no known owner: answered here, from the event
 * store's latest version, as a single replica does.
 */
@Injectable()
export class ForwardedCheckTurn extends CheckTurn {
  private readonly flog = new Logger('check-turn-forward');
  @Inject(PartitionOwnership) private readonly ownership!: PartitionOwnership;
  @Inject(Messaging) private readonly bus!: Messaging;
  private leases?: PartitionLeases;
  private sub?: Subscription;

  /** Starts answering forwarded checks for the channels this replica serves. */
  attach(leases: PartitionLeases): void {
    this.leases = leases;
    this.sub = this.bus.client.nc.subscribe(forwardSubject(leases.replicaId), {
      callback: (_e, m) => {
        void (async () => {
          let reply: Forwarded = { ok: false };
          try {
            const r = m.json<CheckTurnRequest>();
            if (this.ownership.ownsChannel(r.channelId))
              reply = { ok: true, data: await super.run(r) };
          } catch (e) {
            this.flog.warn({ err: (e as Error).message, msg: 'forwarded check failed' });
          }
          m.respond(JSON.stringify(reply));
        })();
      },
    });
  }

  detach(): void {
    this.sub?.unsubscribe();
    this.sub = undefined;
    this.leases = undefined;
  }

  override run(r: CheckTurnRequest): CheckTurnResult | Promise<CheckTurnResult> {
    const holder = this.leases?.holderOf(this.ownership.partitionOf(r.channelId));
    if (!this.leases || !holder || holder === this.leases.replicaId) return super.run(r);
    return this.forward(holder, r);
  }

  private async forward(holder: string, r: CheckTurnRequest): Promise<CheckTurnResult> {
    try {
      const m = await this.bus.client.nc.request(forwardSubject(holder), JSON.stringify(r), {
        timeout: FORWARD_TIMEOUT_MS,
      });
      const reply = m.json<Forwarded>();
      if (reply.ok) return reply.data;
    } catch {
      // No responders (it died) or too slow: answer here.
    }
    return super.run(r);
  }
}
