import { randomUUID } from 'node:crypto';
import {
  RelayClient,
  RelayError,
  type GrantSubscription,
  type GrantedEvent,
} from '@dirigent/relay-client';

export interface RelayAgentOptions {
  agentId: string;
  /** The agent's own Discord account: the identity it registers (and is bound to this relay by). */
  discordUserId: string;
  agentName?: string;
  /**
   * The agent's turn: returns the reply text once it is posted to Discord under the agent's
   * account (`NO_REPLY` or blank: an empty turn).
   */
  takeTurn: (grant: GrantedEvent) => Promise<string> | string;
  /** Grant redelivery after an unacknowledged delivery (a cut link). Default 30000. */
  ackWaitMs?: number;
}

/**
 * One agent runtime on a relay: registers itself (which binds it to this relay on the
 * master), then on each grant checks that the turn is still its own, takes it and completes
 * it. Grants come through a durable consumer on the master with unlimited deliveries, so a
 * cut leaf link delays grants but loses none; a grant delivered twice is taken once (the
 * second check-turn says the turn has moved on, and the completion is fenced by `turnId`).
 */
export class RelayAgent {
  private sub?: GrantSubscription;
  /**
   * Turns taken, by turn id (bounded): a grant redelivered while or after its turn was taken
   * is not taken again.
   */
  private readonly runs = new Map<string, { runId: string; text: string; done: boolean }>();
  /** Turns this runtime completed (for its log and tests). */
  readonly completed: GrantedEvent[] = [];

  constructor(
    private readonly relay: RelayClient,
    readonly opts: RelayAgentOptions,
  ) {}

  get durable(): string {
    return `relay-agent-${this.opts.agentId}`;
  }

  /**
   * Registers the agent — retrying while no coordinator answers (a relay may start before
   * the master's services) — then hears its grants. A refusal (`FORBIDDEN`: the agent is
   * bound to another instance) is thrown.
   */
  async start(onWaiting?: (reason: string) => void): Promise<void> {
    const { agentId, discordUserId, agentName } = this.opts;
    for (;;) {
      try {
        await this.relay.tool('register', agentId, {
          discordUserId,
          ...(agentName ? { agentName } : {}),
        });
        break;
      } catch (e) {
        if (!(e instanceof RelayError) || !['UNAVAILABLE', 'TIMEOUT'].includes(e.code)) throw e;
        onWaiting?.(e.message);
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
    this.sub = await this.relay.onGranted({
      durable: this.durable,
      agentId,
      maxDeliver: -1,
      ...(this.opts.ackWaitMs ? { ackWaitMs: this.opts.ackWaitMs } : {}),
      handler: (grant) => this.onGrant(grant),
    });
  }

  private async onGrant(grant: GrantedEvent): Promise<void> {
    const { agentId } = this.opts;
    let run = this.runs.get(grant.turnId);
    if (run?.done) return;
    if (!run) {
      const check = await this.relay.checkTurn({ ...grant, agentId });
      if (!check.allowed) return;
      const text = await this.opts.takeTurn(grant);
      run = { runId: `${grant.turnId}:${randomUUID()}`, text, done: false };
      this.runs.set(grant.turnId, run);
      if (this.runs.size > 1000) this.runs.delete(this.runs.keys().next().value!);
    }
    // A completion that failed (the link was cut) is re-sent on redelivery with the same run
    // id: stored once whichever attempt got through.
    await this.relay.completeTurn({
      guildId: grant.guildId,
      channelId: grant.channelId,
      agentId,
      runId: run.runId,
      text: run.text,
      turnId: grant.turnId,
    });
    run.done = true;
    this.completed.push(grant);
  }

  async stop(): Promise<void> {
    await this.sub?.stop();
  }
}
