import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { MessageCreated, TypingStarted } from '@dirigent/contracts';
import { KeyedQueue } from '@dirigent/messaging';
import { Clock } from '@dirigent/service-kit';
import { Agents } from './agents';
import { RESUME_WITHIN_MS } from './bursts-cut-short';
import { ChannelActivity, type SeenMessage } from './channel-activity';
import { MentionOrchestration } from './mention-orchestration';
import { InboundStore, type OpenInbound } from './stores';
import { ReactiveTurn } from './reactive-turn';
import { ResumeBursts } from './resume-bursts';

/** Open messages resumed at start, at most (older ones stay open: a bound on a restart's work). */
const RESUMED_AT_START = 500;
/** Message ids remembered as claimed by this process. */
const REMEMBERED = 5000;

export function seenMessage(m: MessageCreated): SeenMessage {
  return {
    messageId: m.messageId,
    guildId: m.guildId,
    channelId: m.channelId,
    authorId: m.authorId,
    authorIsBot: m.authorIsBot,
    content: m.content,
    at: Date.parse(m.createdAt),
    ...(m.webhookId ? { webhookId: m.webhookId } : {}),
    ...(m.authorName ? { authorName: m.authorName } : {}),
    ...(m.replyToMessageId ? { replyToMessageId: m.replyToMessageId } : {}),
    ...(m.mentions ? { mentions: m.mentions } : {}),
  };
}

/**
 * A Discord message, for every built-in agent: its own deliveries pace bursts, a human
 * message during a burst interrupts it, and otherwise each agent decides on the message
 * in the channel's lane (one in-flight reply per channel), from the router's durable inbox
 * (`router_inbound`: recorded before the event is acknowledged, settled after the turns,
 * resumed after a restart, a no-op for a message already settled). In a channel whose turns the
 * coordinator manages, an agent among its speakers waits for its grant instead.
 */
@Injectable()
export class ReactToMessage implements OnApplicationBootstrap {
  private readonly log = new Logger('router:messages');

  /** Messages whose turns this process started (a redelivery or the resume finds them here). */
  private readonly claimed = new Set<string>();

  constructor(
    private readonly agents: Agents,
    private readonly inbox: InboundStore,
    private readonly clock: Clock,
    private readonly activity: ChannelActivity,
    private readonly lanes: KeyedQueue,
    private readonly bursts: ResumeBursts,
    private readonly reactive: ReactiveTurn,
    private readonly orchestration: MentionOrchestration,
  ) {}

  /**
   * Records a new message in the durable inbox, then starts its turns and returns: the
   * consumer acknowledges the event once the message is recorded (a SIGKILL after that
   * resumes it at the next start) and must keep delivering beats while the lanes run.
   * `eventId` (the envelope id) is the cause in the decisions' lineage.
   */
  async observe(m: MessageCreated, eventId?: string): Promise<void> {
    const seen = { ...seenMessage(m), ...(eventId ? { eventId } : {}) };
    if (this.claimed.has(m.messageId)) return;
    const seenAs = this.activity.observe(seen, this.agents.userIds);
    if (seenAs === 'own') return;
    this.reactive.prepare(seen);
    // Claimed by a running burst, which routes it again and settles it; recorded first with
    // the burst it interrupted, so a SIGKILL before that has it judged the same way at the
    // next start (`ResumeBursts`).
    const burst = seenAs === 'interrupt' ? this.activity.burstOf(m.channelId) : undefined;
    const state = await this.inbox.record(m, eventId, new Date(this.clock.now()), burst);
    if (seenAs === 'interrupt') return this.claim(m.messageId);
    if (state === 'settled') return;
    this.start(m, seen, state === 'open');
  }

  /**
   * At start: the bursts a restart cut short go first in their lanes (`ResumeBursts`: the
   * human message that claimed one is judged as its interruption), then the messages
   * recorded but not settled (within the last ten minutes) run their turns, except those an
   * agent had already decided on.
   */
  async onApplicationBootstrap(): Promise<void> {
    const open = await this.inbox.open(RESUMED_AT_START);
    const seen = (o: OpenInbound) => ({
      ...seenMessage(o.message),
      ...(o.eventId ? { eventId: o.eventId } : {}),
    });
    const bursts = await this.bursts.prepare(open, seen);
    if (open.length) this.log.warn({ messages: open.length }, 'resuming messages left open');
    const now = this.clock.now();
    const resumed: { message: MessageCreated; seen: SeenMessage }[] = [];
    for (const o of open) {
      const { message } = o;
      if (this.claimed.has(message.messageId)) continue;
      if (bursts.taken.has(message.messageId)) {
        this.claim(message.messageId);
        continue;
      }
      // Long gone (the router was down for a while): not answered now, out of context.
      if (now - Date.parse(message.createdAt) > RESUME_WITHIN_MS) {
        await this.inbox.settle(message.messageId, new Date(now));
        continue;
      }
      resumed.push({ message, seen: seen(o) });
    }
    // Seen before a resumed burst runs (so none of them counts as its interruption), queued
    // in the lanes behind it.
    for (const r of resumed) this.activity.observe(r.seen, this.agents.userIds);
    this.bursts.start(bursts.plans);
    for (const r of resumed) this.start(r.message, r.seen, true);
  }

  /** Runs every agent's turn on the message, then settles it in the inbox. */
  private start(m: MessageCreated, seen: SeenMessage, resumed: boolean): void {
    this.claim(m.messageId);
    const failed = (e: unknown) =>
      this.log.error({ err: (e as Error).message, messageId: m.messageId }, 'turn failed');
    const turns = this.agents.all.map((agent) =>
      // An orchestrator's jobs run off the lane, as tasks: the channel keeps its turns.
      (agent.orchestrator
        ? this.orchestration.run(agent, m, resumed)
        : this.lanes.run(m.channelId, () => this.reactive.run(agent, m, seen, resumed))
      ).catch(failed),
    );
    void Promise.all(turns)
      .then(() => this.inbox.settle(m.messageId, new Date(this.clock.now())))
      .catch(failed);
  }

  private claim(messageId: string): void {
    this.claimed.add(messageId);
    if (this.claimed.size > REMEMBERED) this.claimed.delete(this.claimed.values().next().value!);
  }

  /**
   * A message was deleted: an orchestration it started stops and answers nothing, and it is
   * no longer "the message before" a request (a notice deleted after it was sent cannot be
   * pinned).
   */
  deleted(m: { channelId: string; messageId: string }): void {
    this.orchestration.cancel(m.messageId);
    this.activity.forget(m.channelId, m.messageId);
  }

  typing(t: TypingStarted): void {
    this.activity.typing(t.guildId, t.channelId, t.userId, Date.parse(t.at), this.agents.userIds);
  }
}
