import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  LearningEventTypes,
  LearningJudgeDue,
  subject,
  type ContextClass,
  type RouterDecision,
} from '@dirigent/contracts';
import { declareJob, Reactor, timer, type DeclaredJob } from '@dirigent/reactor';
import { judgeTurn } from '@dirigent/router-domain';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import { DurableTimers } from '@dirigent/timers';
import type { RouterConfig } from '../../config';
import { Agents } from '../../application/agents';
import { ChannelHistory } from '../../application/clients';
import { ROUTER_SERVICE } from '../../application/schedule-followup';
import { DecisionLog } from '../../application/stores';
import { PersonaLearning } from './persona-learning';

/** The router's durable timer judging a turn once its window closed. */
export const LEARNING_JUDGE_DUE = timer({
  subject: subject.timerFired(ROUTER_SERVICE, 'learning-judge'),
  type: LearningEventTypes.judgeDue,
});

/** Silent and react-only turns: what the router chose not to say. */
const QUIET_SHAPES = new Set(['silent', 'react-only']);

/**
 * The room's judgement of a built-in agent's turn (docs/architecture.md, "Learning
 * signals"), on a durable timer `DIRIGENT_LEARNING_JUDGE_WINDOW_MS` after it: a line nobody
 * engaged with while humans kept talking is `ignored`; a silent or react-only turn is
 * `silent-missed` when someone asked for the agent meanwhile, else `silent-ok` when the room
 * went on. The timer lives in the router's KV bucket (a restart or a SIGKILL fires it
 * later); the step is kept once per message, so a redelivered firing counts once.
 */
@Injectable()
export class JudgeTurns {
  private readonly log = new Logger('router:learning');

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
    private readonly reactor: Reactor,
    private readonly timers: DurableTimers,
    private readonly decisions: DecisionLog,
    private readonly history: ChannelHistory,
    private readonly agents: Agents,
    private readonly learning: PersonaLearning,
    private readonly clock: Clock,
  ) {}

  /** The reactor job `learning-judge` (registered from the service's `reactor-jobs.ts`). */
  jobs(): DeclaredJob[] {
    return [
      declareJob({
        name: 'learning-judge',
        trigger: LEARNING_JUDGE_DUE,
        parse: LearningJudgeDue.create,
        run: (due) => this.judge(due),
      }),
    ];
  }

  /**
   * A turn ended: arms its judgement. A line is judged once, by its first message; a quiet
   * turn only when none of the agent's in the channel waits for judgement (a busy room's
   * many silences are one judgement, from the first, not one step each: quiet never
   * outweighs speaking by sheer number).
   */
  async arm(d: RouterDecision, sentIds: string[]): Promise<void> {
    const quiet = !sentIds.length && QUIET_SHAPES.has(d.dimensions.outputShape);
    if (!this.agents.get(d.agentId) || (!sentIds.length && !quiet)) return;
    if (quiet && !d.inboundMessageId) return;
    const key = sentIds.length
      ? `learning-judge:${sentIds[0]}`
      : `learning-judge:quiet:${d.channelId}:${d.agentId}`;
    if (quiet && (await this.timers.isPending(key))) return;
    const at = this.clock.now();
    const due: LearningJudgeDue = {
      decisionId: d.decisionId,
      guildId: d.guildId,
      channelId: d.channelId,
      at,
      sentIds: sentIds.slice(0, 50),
    };
    const dueAt = at + this.config.DIRIGENT_LEARNING_JUDGE_WINDOW_MS;
    await this.reactor.arm(LEARNING_JUDGE_DUE, key, dueAt, due, d.decisionId);
  }

  async judge(due: LearningJudgeDue): Promise<void> {
    const d = await this.decisions.get(due.decisionId);
    const agent = d && this.agents.get(d.agentId);
    const messageId = due.sentIds[0] ?? d?.inboundMessageId;
    if (!d || !agent || !messageId) return;
    const end = due.at + this.config.DIRIGENT_LEARNING_JUDGE_WINDOW_MS;
    // From the decision on: a reply or reaction quicker than the timer's arming counts.
    const from = Math.min(due.at, Date.parse(d.at) || due.at);
    const seen = await this.history.since(d.guildId, d.channelId, from);
    const own = new Set([...due.sentIds, ...(d.inboundMessageId ? [d.inboundMessageId] : [])]);
    const judged = judgeTurn({
      agent,
      sent: due.sentIds.map((id, i) => ({ messageId: id, text: d.beats[i]?.text ?? '' })),
      // The window's messages, after the turn's own (a later message's edit time aside).
      messages: seen.messages.filter((m) => m.at <= end && !own.has(m.messageId)),
      reactedTo: new Set(
        seen.reactions
          .filter((r) => !r.userIsBot && !this.agents.userIds.has(r.userId))
          .map((r) => r.messageId),
      ),
      minMessages: this.config.DIRIGENT_LEARNING_JUDGE_MIN_MESSAGES,
    });
    this.log.debug?.({ decisionId: d.decisionId, judged }, 'turn judged');
    if (!judged) return;
    await this.learning.roomSignal(
      {
        guildId: d.guildId,
        agentId: d.agentId,
        contextClass: (d.inputs?.contextClass ?? 'casual') as ContextClass,
        dispositionId: d.chosen,
        messageId,
      },
      judged,
    );
  }
}
