import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  type ContextClass,
  type LearningGetRequest,
  type LearningGetResult,
  type LearningResetRequest,
  type LearningSignal,
  type MessageCreated,
  type ReactionChanged,
  type RoomSignalKind,
} from '@dirigent/contracts';
import {
  decayed,
  effectiveWeight,
  effectiveWeights,
  memberSignal,
  quotesLine,
  reactionSignal,
  refersBack,
  replySignal,
  type MemberInput,
  type PersonaSignal,
} from '@dirigent/router-domain';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import type { RouterConfig } from '../../config';
import { Agents } from '../../application/agents';
import { RouterOutbox } from '../../application/clients';
import {
  LearningStore,
  PersonaStore,
  type PersonaMessage,
  type PersonaRecord,
  type SignalKey,
} from './ports';

/** A guild's adjustments of an agent in every mood, and the agent's active persona. */
export interface Learned {
  rows: Awaited<ReturnType<LearningStore['adjustments']>>;
  persona: PersonaRecord | null;
}

/**
 * The room as a member of its own (`learning_signals.user_id`, 20 characters): its
 * judgements of a turn are kept once per message and agent, like a member's signal.
 */
export const roomMember = (agentId: string) =>
  `room:${createHash('sha1').update(agentId).digest('hex').slice(0, 15)}`;

/**
 * Learning per community (docs/architecture.md, "Learning per community"): a member's
 * reaction, reply or quote of a built-in agent's message (and the room's judgement of a
 * turn, `JudgeTurns`) moves the guild's adjustment of the disposition that produced it, in the room's mood the decision was made in, by the
 * persona's `learning.rate`. One signal per member per message (the strongest), a removed
 * reaction withdraws it, bots never count, a member's signals per guild are capped per
 * day; the persona's weights stay the admin's baseline. Every step is a
 * `learning.adjusted` event naming its cause.
 */
@Injectable()
export class PersonaLearning {
  private readonly log = new Logger('router:learning');
  /** The last {@link learnedOf} of each guild's agent. */
  private readonly lastRead = new Map<string, Learned>();

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
    private readonly agents: Agents,
    private readonly store: PersonaStore,
    private readonly learned: LearningStore,
    private readonly outbox: RouterOutbox,
    private readonly clock: Clock,
  ) {}

  /** A built-in agent's message was delivered: remember which disposition produced it. */
  delivered(d: Omit<PersonaMessage, 'at'>): Promise<void> {
    return this.store.recordMessage({ ...d, at: new Date(this.clock.now()) });
  }

  /**
   * The weights a decision of `agentId` in `guildId` scores with in the room's mood: the
   * persona's baseline plus the guild's adjustments for that class, decayed to now.
   */
  async effective(
    guildId: string,
    agentId: string,
    cls: ContextClass,
    baseline: Readonly<Record<string, number>>,
  ): Promise<Record<string, number>> {
    return this.effectiveIn(await this.learnedOf(guildId, agentId), cls, baseline);
  }

  /**
   * What {@link effectiveIn} reads: the guild's adjustments of the agent in every mood and
   * its active persona. Read while the room is read, before the mood is known.
   */
  async learnedOf(guildId: string, agentId: string): Promise<Learned> {
    const [rows, persona] = await Promise.all([
      this.learned.adjustments(guildId, agentId),
      this.store.active(agentId),
    ]);
    const read = { rows, persona };
    this.lastRead.set(`${guildId}/${agentId}`, read);
    return read;
  }

  /** What {@link learnedOf} read last for the guild's agent (none yet: no adjustment, no persona). */
  knownLearned(guildId: string, agentId: string): Learned {
    return this.lastRead.get(`${guildId}/${agentId}`) ?? { rows: [], persona: null };
  }

  /** {@link effective} from what {@link learnedOf} read. */
  effectiveIn(
    { rows: all, persona: p }: Learned,
    cls: ContextClass,
    baseline: Readonly<Record<string, number>>,
  ): Record<string, number> {
    const rows = all.filter((r) => r.contextClass === cls);
    if (!rows.length || !p) return { ...baseline };
    const now = this.clock.now();
    const adj: Record<string, number> = {};
    for (const r of rows) {
      const a = decayed(
        r.adjustment,
        now - r.at.getTime(),
        this.config.DIRIGENT_LEARNING_HALF_LIFE_MS,
      );
      if (a !== 0) adj[r.dispositionId] = a;
    }
    return effectiveWeights(baseline, adj, p.content.learning.bounds);
  }

  async reaction(e: ReactionChanged): Promise<void> {
    if (e.userIsBot || this.agents.userIds.has(e.userId)) return;
    const polarity = reactionSignal(e.emoji);
    if (!polarity) return;
    await this.signal(e.guildId, e.messageId, e.userId, 'reaction', {
      type: 'add',
      kind: 'reaction',
      polarity,
      emoji: e.emoji,
    });
  }

  async reactionRemoved(e: ReactionChanged): Promise<void> {
    if (e.userIsBot || this.agents.userIds.has(e.userId) || !reactionSignal(e.emoji)) return;
    await this.signal(e.guildId, e.messageId, e.userId, 'withdrawn', {
      type: 'remove',
      emoji: e.emoji,
    });
  }

  /** A human message: a reply to an agent's line is a signal, and so is quoting one. */
  async message(m: MessageCreated): Promise<void> {
    if (m.authorIsBot) return;
    if (m.replyToMessageId) {
      const polarity = replySignal(m.content);
      const kind = polarity === 'negative' ? 'rebuke' : 'reply';
      await this.signal(m.guildId, m.replyToMessageId, m.authorId, kind, {
        type: 'add',
        kind,
        polarity,
      });
    }
    await this.quotes(m);
  }

  /**
   * A human message quoting an agent's recent line in the channel (a run of its words) or
   * referring back to it ("like Dit said": the agent's latest line) is a positive `quote`
   * signal of its author on that line.
   */
  private async quotes(m: MessageCreated): Promise<void> {
    const since = new Date(this.clock.now() - this.config.DIRIGENT_LEARNING_QUOTE_WINDOW_MS);
    const lines = await this.store.recentMessages(m.guildId, m.channelId, since, 20);
    const referred = new Set<string>();
    for (const line of lines) {
      if (line.messageId === m.replyToMessageId || !line.content) continue;
      const agent = this.agents.get(line.agentId);
      if (!agent) continue;
      const back = !referred.has(agent.id) && refersBack([agent.name, agent.id], m.content);
      // A reference back is to the agent's latest line (lines are newest first).
      referred.add(agent.id);
      if (!back && !quotesLine(line.content, m.content)) continue;
      await this.signal(m.guildId, line.messageId, m.authorId, 'quote', {
        type: 'add',
        kind: 'quote',
        polarity: 'positive',
      });
    }
  }

  private async signal(
    guildId: string,
    messageId: string,
    userId: string,
    signal: LearningSignal,
    input: MemberInput,
  ): Promise<void> {
    const origin = await this.store.message(messageId);
    if (!origin || origin.guildId !== guildId || !this.agents.get(origin.agentId)) return;
    const { contextClass = 'casual', agentId, dispositionId } = origin;
    await this.step({ guildId, agentId, contextClass, dispositionId, messageId, userId }, signal, {
      input,
      dailyCap: this.config.DIRIGENT_LEARNING_DAILY_CAP,
    });
  }

  /**
   * The room's judgement of a turn (`ignored`, `silent-ok`, `silent-missed`): one step on
   * the turn's key message, by the room as its own member (no daily cap; once per message,
   * so a redelivered timer counts once).
   */
  async roomSignal(
    origin: Omit<SignalKey, 'userId'>,
    judged: { signal: RoomSignalKind; polarity: PersonaSignal },
  ): Promise<void> {
    await this.step({ ...origin, userId: roomMember(origin.agentId) }, judged.signal, {
      input: { type: 'add', kind: judged.signal, polarity: judged.polarity },
      dailyCap: Infinity,
      room: true,
    });
  }

  private async step(
    key: SignalKey,
    signal: LearningSignal,
    o: { input: MemberInput; dailyCap: number; room?: boolean },
  ): Promise<void> {
    const persona = await this.store.active(key.agentId);
    if (!persona) return;
    const { learning, dispositionWeights } = persona.content;
    const now = this.clock.now();
    const r = await this.learned.signal(key, new Date(now), (s) =>
      memberSignal({
        current: s.current,
        input: o.input,
        today: s.today,
        dailyCap: o.dailyCap,
        baseline: dispositionWeights[key.dispositionId] ?? 1,
        adjustment: s.adjustedAt
          ? decayed(
              s.adjustment,
              now - s.adjustedAt.getTime(),
              this.config.DIRIGENT_LEARNING_HALF_LIFE_MS,
            )
          : s.adjustment,
        learning,
      }),
    );
    if (!r || r.delta === 0) return;
    this.log.log({ ...key, delta: r.delta, adjustment: r.adjustment, signal }, 'learning adjusted');
    const { guildId, agentId, contextClass, dispositionId, messageId, userId } = key;
    await this.outbox.learningAdjusted({
      guildId,
      agentId,
      contextClass,
      dispositionId,
      delta: r.delta,
      adjustment: r.adjustment,
      cause: { ...(o.room ? {} : { userId }), messageId, signal },
      at: new Date(now).toISOString(),
    });
  }

  /** `admin.learning.get`: the guild's adjustments of the agent, decayed to now, with the effective weights. */
  async get(r: LearningGetRequest): Promise<LearningGetResult> {
    const p = this.agents.get(r.agentId) ? await this.store.active(r.agentId) : null;
    if (!p) throw new DomainError(ErrorCodes.NOT_FOUND, `no persona for agent ${r.agentId}`);
    const now = this.clock.now();
    const [rows, signals] = await Promise.all([
      this.learned.adjustments(r.guildId, r.agentId),
      this.learned.signalCount(r.guildId, r.agentId),
    ]);
    return {
      signals,
      adjustments: rows.map((x) => {
        const adjustment = decayed(
          x.adjustment,
          now - x.at.getTime(),
          this.config.DIRIGENT_LEARNING_HALF_LIFE_MS,
        );
        return {
          contextClass: x.contextClass,
          dispositionId: x.dispositionId,
          adjustment,
          effective: effectiveWeight(
            p.content.dispositionWeights[x.dispositionId] ?? 1,
            adjustment,
            p.content.learning.bounds,
          ),
        };
      }),
    };
  }

  /** `admin.learning.reset`: the guild's adjustments of the agent back to 0. */
  async reset(r: LearningResetRequest): Promise<{ reset: number }> {
    if (!this.agents.get(r.agentId))
      throw new DomainError(ErrorCodes.NOT_FOUND, `no persona for agent ${r.agentId}`);
    const reset = await this.learned.reset(r.guildId, r.agentId);
    this.log.log({ guildId: r.guildId, agentId: r.agentId, reset }, 'learning reset');
    return { reset };
  }
}
