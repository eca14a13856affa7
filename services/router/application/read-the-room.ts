import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import {
  agentInput,
  dispositionSetId,
  HUMANS_WINDOW_MS,
  isMentioned,
  messageFeatures,
  presentUsers,
  roomSignals,
  type AgentPersona,
  type DecisionInputs,
  type Disposition,
  type FollowupBias,
  type InterruptionAction,
  type Trigger,
} from '@dirigent/router-domain';
import type { LateInput } from '@dirigent/contracts';
import type { RouterConfig } from '../config';
import { Agents } from './agents';
import { ChannelActivity, type SeenMessage } from './channel-activity';
import { RecentTalk } from './recent-talk';
import { DispositionStore } from './stores';
import { RoomProbes } from './room-probes';

export interface RoomQuestion {
  guildId: string;
  channelId: string;
  agent: AgentPersona;
  trigger: Trigger;
  inbound?: SeenMessage;
  mentioned: boolean;
  bias?: FollowupBias;
  interruption?: { action: InterruptionAction; parentDispositionId: string };
}

/**
 * Gathers a decision's inputs (ARCHITECTURE part 3): the message's features, the channel's
 * activity, who is present (recent authors and members), whether memory holds something on
 * the topic (a small search, only when the message looks for it), the budget fraction, the
 * hour, the temperature, and the disposition set (kept by content address for a replay).
 * The scoring itself stays pure: `routeFromInputs` reads only what this returns.
 */
@Injectable()
export class ReadTheRoom {
  private readonly log = new Logger('router:room');
  /** Channels whose durable history this process has read (once, at first need). */
  private readonly loaded = new Map<string, Promise<void>>();

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
    private readonly agents: Agents,
    private readonly activity: ChannelActivity,
    private readonly probes: RoomProbes,
    private readonly dispositions: DispositionStore,
    private readonly clock: Clock,
    private readonly talk: RecentTalk,
  ) {}

  /**
   * The channel's recent messages from the durable Discord events (`RecentTalk`), read once
   * per process: after a restart the bots' run and the room's signals count what was said
   * before it, not only what this process observed. A failed read is retried at the next
   * turn.
   */
  load(guildId: string, channelId: string): Promise<void> {
    let p = this.loaded.get(channelId);
    if (!p) {
      const from = this.clock.now() - HUMANS_WINDOW_MS;
      p = this.talk.messages(guildId, channelId).then(
        (messages) =>
          this.activity.merge(
            guildId,
            channelId,
            messages.filter((m) => m.at >= from).map((m) => ({ ...m, guildId, channelId })),
          ),
        (e) => {
          this.loaded.delete(channelId);
          this.log.warn({ err: (e as Error).message, channelId }, 'channel history not read');
        },
      );
      this.loaded.set(channelId, p);
    }
    return p;
  }

  /**
   * A message has come in: its channel's history and, when some agent's decision on it will
   * ask memory, the topic's hit count are read now, while the channel's lane may still be
   * busy, so that the decisions find them at hand.
   */
  prefetch(m: SeenMessage): void {
    void this.load(m.guildId, m.channelId);
    if (m.authorIsBot) return;
    const f = messageFeatures(m.content, { authorIsBot: false, addressedToOther: false });
    if (f.callback || f.question || this.agents.all.some((a) => isMentioned(a, m))) {
      void this.probes.memoryHits(m.guildId, m.channelId, m.content);
    }
  }

  /**
   * The decision's inputs, and what `learned` gave (a read of the caller's, under the same
   * deadline; what `known` says when it is late).
   */
  async gather<L>(
    q: RoomQuestion,
    learned?: { read: Promise<L>; known: () => L },
  ): Promise<{ inputs: DecisionInputs; dispositions: Disposition[]; learned?: L }> {
    const m = q.inbound;
    const message = m
      ? messageFeatures(m.content, {
          authorIsBot: m.authorIsBot,
          addressedToOther: !q.mentioned && this.addressedToOther(q.agent, m),
        })
      : undefined;
    const probe = m && !m.authorIsBot && (q.mentioned || message!.callback || message!.question);
    // The dispositions and the channel's history are waited for (the bot-run bound counts
    // what the history holds after a restart); the probes until the deadline or until those
    // are in, whichever is later.
    const needed = Promise.all([this.dispositions.list(), this.load(q.guildId, q.channelId)]);
    const deadline = new Deadline(this.config.DIRIGENT_ROUTER_INPUTS_DEADLINE_MS, needed);
    const [[all], budgetFraction, members, hits, learnt] = await Promise.all([
      needed,
      deadline.or(this.probes.budgetFraction(q.guildId), 'budget', () =>
        this.probes.knownBudgetFraction(q.guildId),
      ),
      deadline.or(this.probes.channelMembers(q.guildId, q.channelId), 'members', () =>
        this.probes.knownMembers(q.channelId),
      ),
      probe ? this.memory(deadline, q.guildId, q.channelId, m.content) : undefined,
      learned ? deadline.or(learned.read, 'learned', learned.known) : undefined,
    ]).finally(() => deadline.clear());
    const now = this.clock.now();
    const recent = this.activity.get(q.channelId).recent;
    const authors = recent
      .filter((x) => now - x.at <= HUMANS_WINDOW_MS)
      .reverse()
      .map((x) => x.authorId);
    const setId = dispositionSetId(all);
    await this.dispositions.remember(setId, all);
    const inputs: DecisionInputs = {
      trigger: q.trigger,
      mentioned: q.mentioned,
      agent: agentInput(q.agent),
      ...(message ? { message } : {}),
      room: roomSignals(recent, now),
      presentUserIds: presentUsers(authors, members, this.agents.userIds),
      ...(hits !== undefined ? { memory: { hits } } : {}),
      ...(budgetFraction !== undefined ? { budgetFraction } : {}),
      hour: new Date(now + this.config.DIRIGENT_ROUTER_UTC_OFFSET_MIN * 60_000).getUTCHours(),
      temperature: this.config.temperature,
      ...(q.bias ? { bias: q.bias } : {}),
      ...(q.interruption ? { interruption: q.interruption } : {}),
      ...(q.agent.personaVersion !== undefined ? { personaVersion: q.agent.personaVersion } : {}),
      dispositionSet: setId,
      ...(deadline.late.length ? { late: deadline.late.sort() } : {}),
    };
    return { inputs, dispositions: all, learned: learnt };
  }

  /**
   * Memory's hit count on the message, under the deadline counted from when it was asked
   * (as the message came in, usually): a decision that comes after the lane's earlier
   * turns does not wait again for a probe already late.
   */
  private memory(deadline: Deadline, guildId: string, channelId: string, topic: string) {
    const { at, hits } = this.probes.memoryProbe(guildId, channelId, topic);
    return deadline.or(hits, 'memory', () => undefined, at);
  }

  /**
   * The message names another agent, mentions someone else, or replies to a person or to
   * another agent's own account (a webhook reply cannot be told apart: it counts as not).
   */
  private addressedToOther(agent: AgentPersona, m: SeenMessage): boolean {
    if (this.agents.all.some((a) => a.id !== agent.id && isMentioned(a, m))) return true;
    if (m.mentions?.some((id) => id !== agent.discordUserId)) return true;
    if (!m.replyToMessageId) return false;
    const to = this.activity
      .get(m.channelId)
      .recent.find((x) => x.messageId === m.replyToMessageId);
    if (!to) return false;
    if (!to.authorIsBot) return to.authorId !== m.authorId;
    return this.agents.all.some((a) => a.id !== agent.id && a.discordUserId === to.authorId);
  }
}

/**
 * One deadline for a decision's probes: `or` gives a probe's answer if it comes before `ms`
 * have passed and `needed` is in (whichever is later), else what `known` says, and names the
 * probe in `late`; the probe itself goes on. A probe asked earlier (`askedAt`, by
 * `Date.now()`) has `ms` from then.
 */
class Deadline {
  readonly late: LateInput[] = [];
  private timer?: NodeJS.Timeout;
  private readonly expired: Promise<void>;
  private readonly needed: Promise<unknown>;
  private readonly start = Date.now();

  constructor(
    private readonly ms: number,
    needed: Promise<unknown>,
  ) {
    const timer = new Promise((resolve) => (this.timer = setTimeout(resolve, ms)));
    this.needed = needed.catch(() => undefined);
    this.expired = Promise.all([timer, this.needed]).then(() => undefined);
  }

  or<T>(probe: Promise<T>, name: LateInput, known: () => T, askedAt?: number): Promise<T> {
    let answered = false;
    // Asked long enough ago to be late already: due as soon as `needed` is in.
    const expired =
      askedAt !== undefined && askedAt + this.ms <= this.start ? this.needed : this.expired;
    return Promise.race([
      probe.then((v) => ((answered = true), v)),
      expired.then(() => {
        if (answered) return probe;
        this.late.push(name);
        return known();
      }),
    ]);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}
