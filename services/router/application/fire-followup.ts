import { Injectable } from '@nestjs/common';
import { FollowupDue } from '@dirigent/contracts';
import { KeyedQueue } from '@dirigent/messaging';
import { declareJob, type Lineage, type DeclaredJob } from '@dirigent/reactor';
import type { FollowupBias } from '@dirigent/router-domain';
import { Agents } from './agents';
import { ExecuteTurn } from './execute-turn';
import { FollowupVerdict } from './followup-verdict';
import { RouterOutbox } from './clients';
import { DecisionLog, FollowupStore } from './stores';
import { FOLLOWUP_DUE } from './schedule-followup';

/**
 * The reactor job `self-followup`, on the durable timer its decision armed. A due
 * follow-up is aborted when a human replied to the bot, the conversation moved on or
 * someone is mid-thought; otherwise routed again with its bias. It settles once its turn's
 * decision is stored, before it speaks, so it fires exactly once whatever the redeliveries
 * and SIGKILLs.
 */
@Injectable()
export class FireFollowup {
  constructor(
    private readonly agents: Agents,
    private readonly store: FollowupStore,
    private readonly decisions: DecisionLog,
    private readonly verdict: FollowupVerdict,
    private readonly lanes: KeyedQueue,
    private readonly execute: ExecuteTurn,
    private readonly outbox: RouterOutbox,
  ) {}

  /** The reactor job `self-followup` (registered from the service's `reactor-jobs.ts`). */
  jobs(): DeclaredJob[] {
    return [
      declareJob({
        name: 'self-followup',
        trigger: FOLLOWUP_DUE,
        parse: FollowupDue.create,
        run: (due, { lineage }) => this.run(due, lineage),
      }),
    ];
  }

  /**
   * Settles after its turn's decision is stored: a SIGKILL before that leaves it scheduled
   * and its timer's delivery unacknowledged, so the redelivery runs it; one after finds
   * the decision (by follow-up id) and only settles. Fired once, never twice.
   */
  async run(due: FollowupDue, lineage?: Lineage): Promise<void> {
    const f = await this.store.get(due.followupId);
    if (!f) return;
    const event = {
      followupId: f.followupId,
      parentDecisionId: f.parentDecisionId,
      bias: f.bias,
      dueAt: f.dueAt.toISOString(),
    };
    const announce = (status: 'fired' | 'aborted', reason?: string) =>
      this.outbox.followup(f.guildId, f.channelId, {
        ...event,
        status,
        ...(reason ? { reason } : {}),
      });
    // Settled by a delivery killed before its event went out: published again (its id is
    // the stream's de-duplication key, so an event that did go out is not stored twice).
    if (f.status !== 'scheduled') return announce(f.status, f.reason);
    const settle = async (status: 'fired' | 'aborted', reason?: string, decisionId?: string) => {
      if (await this.store.settle(f.followupId, status, reason, decisionId))
        await announce(status, reason);
    };
    const agent = this.agents.get(f.agentId);
    if (!agent) return settle('aborted', 'unknown-agent');
    // Judged when it comes due: the rules read the durable history, not the lane, so a
    // channel whose lane runs behind does not hold an abort for minutes (it did under load).
    const early = await this.verdict.judge(f, agent);
    if (early) return settle(early.status, early.reason, early.decisionId);
    await this.lanes.run(f.channelId, async () => {
      // Again in the lane: the turns it waited behind may have answered or moved on.
      const now = await this.verdict.judge(f, agent);
      if (now) return settle(now.status, now.reason, now.decisionId);
      const parent = await this.decisions.get(f.parentDecisionId);
      const decision = await this.execute.run(
        {
          guildId: f.guildId,
          channelId: f.channelId,
          agent,
          trigger: 'self-followup',
          mentioned: false,
          seed: f.followupId,
          bias: f.bias as FollowupBias,
          parentDecisionId: f.parentDecisionId,
          followupId: f.followupId,
          previous: parent?.beats.map((b) => b.text).join('\n\n') || parent?.reaction,
          lineage,
        },
        // Settled as soon as its decision is stored, before its beats go out.
        (d) => settle('fired', undefined, d.decisionId),
      );
      await settle('fired', undefined, decision.decisionId);
    });
  }
}
