import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Subscription } from '@nats-io/nats-core';
import type { CheckTurnRequest } from '@dirigent/contracts';
import { Messaging, PartitionForward, type PartitionLeases } from '@dirigent/messaging';
import type { CheckTurnResult } from '@dirigent/turn-domain';
import { CheckTurn } from '../application/check-turn';
import { PartitionOwnership } from './partitioned-consumers';

/** Between replicas only: check-turn forwarded to the replica serving the channel. */
export const forwardSubject = (replicaId: string) =>
  `dirigent.internal.turn-coordinator.${replicaId}.check`;

const FORWARD_TIMEOUT_MS = 2_000;

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
  private readonly door = new PartitionForward<CheckTurnRequest, CheckTurnResult>(
    () => this.bus.client.nc,
    forwardSubject,
    FORWARD_TIMEOUT_MS,
    this.flog,
  );
  private leases?: PartitionLeases;
  private sub?: Subscription;

  /** Starts answering forwarded checks for the channels this replica serves. */
  attach(leases: PartitionLeases): void {
    this.leases = leases;
    this.sub = this.door.serve(leases.replicaId, async (body) => {
      const r = body as CheckTurnRequest;
      return this.ownership.ownsChannel(r.channelId) ? await super.run(r) : null;
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
    return (await this.door.ask(holder, r)) ?? super.run(r);
  }
}
