import { Injectable } from '@nestjs/common';
import type { RouterDecision } from '@dirigent/contracts';
import type { AgentPersona } from '@dirigent/router-domain';
import { Clock } from '@dirigent/service-kit';
import { Agents } from './agents';
import type { SeenMessage } from './channel-activity';
import { DeliverBeats } from './deliver-beats';
import { Personas } from '../learning/application/personas';
import {
  BurstStore,
  DecisionLog,
  InboundStore,
  type BurstRecord,
  type OpenInbound,
} from './stores';
import type { TurnRequest } from './turn-record';

/** Bursts resumed at start, at most. */
const RESUMED_AT_START = 100;
/**
 * An open message or a burst cut short older than this at start is settled without turns
 * (a burst: stopped visibly, its beats withheld).
 */
export const RESUME_WITHIN_MS = 10 * 60_000;

/** A burst a restart cut short, read to be resumed. */
export interface Resumable {
  burst: BurstRecord;
  decision: RouterDecision;
  agent: AgentPersona;
  request: TurnRequest;
  /** The human message that claimed the burst before the restart. */
  interrupter?: SeenMessage;
}

/**
 * At start: the bursts a restart cut short (`router_bursts` still running) and what each
 * needs to go on. The bookkeeping of those that need no more (routed again before the
 * restart, long gone, or of an unknown agent) is done here; the rest are resumed by
 * `ResumeBursts`.
 */
@Injectable()
export class BurstsCutShort {
  constructor(
    private readonly bursts: BurstStore,
    private readonly decisions: DecisionLog,
    private readonly inbox: InboundStore,
    private readonly agents: Agents,
    private readonly personas: Personas,
    private readonly beats: DeliverBeats,
    private readonly clock: Clock,
  ) {}

  /**
   * Reads what each running burst needs (before anything runs); the open messages the
   * bursts take as their interruptions are theirs, not resumed as new messages.
   */
  async prepare(
    open: readonly OpenInbound[],
    seen: (o: OpenInbound) => SeenMessage,
  ): Promise<{ plans: Resumable[]; taken: Set<string> }> {
    const plans: Resumable[] = [];
    const taken = new Set<string>();
    const now = () => new Date(this.clock.now());
    for (const burst of await this.bursts.running(RESUMED_AT_START)) {
      const decision = await this.decisions.get(burst.decisionId);
      const known = this.agents.get(burst.agentId);
      const claimed = open.find((o) => o.claimedBy === burst.decisionId);
      if (claimed) taken.add(claimed.message.messageId);
      if (!decision || !known) {
        await this.bursts.end(burst.decisionId, 'stopped', now());
        continue;
      }
      // Routed again before the restart (its decision is stored): only the bookkeeping is left.
      if (claimed && (await this.decisions.decidedOn(claimed.message.messageId, known.id))) {
        await this.bursts.end(burst.decisionId, 'interrupted', now());
        await this.inbox.settle(claimed.message.messageId, now());
        continue;
      }
      // Long gone (the router was down for a while): out of context, stopped visibly.
      const waitedMs = this.clock.now() - Date.parse(decision.at ?? '');
      if (!(waitedMs <= RESUME_WITHIN_MS)) {
        const withheld = decision.beats.length - burst.sent;
        await this.beats.stopBurst(decision, { beat: burst.sent, withheld, waitedMs });
        await this.bursts.end(burst.decisionId, 'stopped', now());
        if (claimed) await this.inbox.settle(claimed.message.messageId, now());
        continue;
      }
      const agent = await this.personas.forTurn(known);
      const inbound = decision.inboundMessageId
        ? await this.inbox.message(decision.inboundMessageId)
        : null;
      const request: TurnRequest = {
        guildId: decision.guildId,
        channelId: decision.channelId,
        agent,
        trigger: decision.trigger,
        ...(inbound ? { inbound: seen({ message: inbound }) } : {}),
        mentioned: decision.inputs?.mentioned ?? false,
        seed: decision.seed,
      };
      plans.push({
        burst,
        decision,
        agent,
        request,
        ...(claimed ? { interrupter: seen(claimed) } : {}),
      });
    }
    return { plans, taken };
  }
}
