import { Injectable } from '@nestjs/common';
import { compareSnowflakes } from '@dirigent/contracts';
import type { LaterMessage } from '@dirigent/router-domain';

export interface SeenMessage extends LaterMessage {
  messageId: string;
  guildId: string;
  channelId: string;
  content: string;
  webhookId?: string;
  authorName?: string;
  /** The envelope id of its `message.created`, when it came from the stream. */
  eventId?: string;
}

interface Waiter {
  content: string;
  resolve: (messageId: string) => void;
}

interface Channel {
  guildId: string;
  recent: SeenMessage[];
  lastHumanAt?: number;
  lastMessageAt?: number;
  lastBotTurnAt?: number;
  othersTypingAt?: number;
  waiters: Waiter[];
  /**
   * Set while a burst is being sent: the first human message goes to it instead of a new
   * route (later ones queue as new messages behind it in the lane).
   */
  burst?: { decisionId?: string; interrupt?: SeenMessage };
  /** Content this router sent recently (a webhook echo of it is its own message). */
  sent: string[];
  /** The newest message id observed (or waited for in vain): what "caught up" compares with. */
  newestId?: string;
  /** Turns waiting for a message of the stream to reach this process. */
  catchUps: { messageId: string; resolve: (seen: boolean) => void }[];
}

const KEEP = 100;
const norm = (s: string) => s.trim();

/** Discord's order within a channel: snowflakes compared as numbers. */
const older = (a: string, b: string) => compareSnowflakes(a, b) < 0;
const newer = (a: string, b: string | undefined) => b === undefined || older(b, a);

/** Inserts `m` in Discord's order (almost always at the end); false when already there. */
function insertInOrder(recent: SeenMessage[], m: SeenMessage): boolean {
  let i = recent.length;
  while (i > 0 && older(m.messageId, recent[i - 1].messageId)) i--;
  if (i > 0 && recent[i - 1].messageId === m.messageId) return false;
  recent.splice(i, 0, m);
  if (recent.length > KEEP) recent.shift();
  return true;
}

/**
 * What the router knows of each channel it has seen since it started: recent messages,
 * its own deliveries, who is typing and whether a burst is running. Guild-wide awareness
 * for prompts comes from memory; this is only for delivery, interruption and the reactor.
 */
@Injectable()
export class ChannelActivity {
  private readonly channels = new Map<string, Channel>();
  /** Messages made before this process started are not waited for in a channel it never saw. */
  private readonly startedAt = Date.now();

  private channel(guildId: string, channelId: string): Channel {
    let c = this.channels.get(channelId);
    if (!c) {
      c = { guildId, recent: [], waiters: [], sent: [], catchUps: [] };
      this.channels.set(channelId, c);
    }
    return c;
  }

  /** `messageId` (or a newer one) reached this process: the turns waiting for it go on. */
  private reached(c: Channel, messageId: string): void {
    if (!newer(messageId, c.newestId)) return;
    c.newestId = messageId;
    if (!c.catchUps.length) return;
    const still = c.catchUps.filter((w) => newer(w.messageId, messageId));
    for (const w of c.catchUps) if (!still.includes(w)) w.resolve(true);
    c.catchUps = still;
  }

  /**
   * Waits until this process has observed the channel's message `messageId` (made at `at`),
   * the newest the stream holds, for at most `timeoutMs`; resolves at once when it has, or
   * when the channel is new here and the message older than this process (its consumer
   * starts at new messages). A message that does not come in time counts as reached, so the
   * next turn does not wait for it again. Resolves whether it came.
   */
  async caughtUp(
    guildId: string,
    channelId: string,
    messageId: string,
    at: number,
    timeoutMs: number,
  ): Promise<boolean> {
    const c = this.channel(guildId, channelId);
    if (!newer(messageId, c.newestId)) return true;
    if (c.newestId === undefined && at < this.startedAt) return true;
    const came = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        c.catchUps = c.catchUps.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      const waiter = {
        messageId,
        resolve: (seen: boolean) => {
          clearTimeout(timer);
          resolve(seen);
        },
      };
      c.catchUps.push(waiter);
    });
    if (!came) this.reached(c, messageId);
    return came;
  }

  /** A deleted message leaves the channel's recent messages. */
  forget(channelId: string, messageId: string): void {
    const c = this.channels.get(channelId);
    const i = c ? c.recent.findIndex((m) => m.messageId === messageId) : -1;
    if (i >= 0) c!.recent.splice(i, 1);
  }

  /**
   * Records a message. Returns `own` when it is the delivery of a beat this router sent,
   * `interrupt` when it is a human message claimed by a running burst, else `new`.
   */
  observe(m: SeenMessage, ownUserIds: ReadonlySet<string>): 'own' | 'interrupt' | 'new' {
    const c = this.channel(m.guildId, m.channelId);
    insertInOrder(c.recent, m);
    this.reached(c, m.messageId);
    c.lastMessageAt = Math.max(c.lastMessageAt ?? 0, m.at);
    const content = norm(m.content);
    // The ingest speaks for an agent through a webhook, the agent's own account, or (with
    // one token) the moderator's: any bot message carrying a beat's text is its delivery.
    const fromAgent = ownUserIds.has(m.authorId) || m.webhookId !== undefined || m.authorIsBot;
    if (fromAgent) {
      const i = c.waiters.findIndex((w) => w.content === content);
      if (i >= 0) {
        const [w] = c.waiters.splice(i, 1);
        c.lastBotTurnAt = m.at;
        w.resolve(m.messageId);
        return 'own';
      }
      if (ownUserIds.has(m.authorId) || c.sent.includes(content)) {
        c.lastBotTurnAt = m.at;
        return 'own';
      }
    }
    if (!m.authorIsBot) {
      c.lastHumanAt = m.at;
      if (c.burst && !c.burst.interrupt) {
        c.burst.interrupt = m;
        return 'interrupt';
      }
    }
    return 'new';
  }

  /**
   * Adds what the durable history holds of the channel (read once after a start: the
   * messages before it, which this process never observed), in Discord's order. The bots'
   * run and the room's signals then count them as if it had been running all along.
   */
  merge(guildId: string, channelId: string, messages: readonly SeenMessage[]): void {
    const c = this.channel(guildId, channelId);
    for (const m of messages) {
      if (insertInOrder(c.recent, m) && !m.authorIsBot)
        c.lastHumanAt = Math.max(c.lastHumanAt ?? 0, m.at);
      this.reached(c, m.messageId);
      c.lastMessageAt = Math.max(c.lastMessageAt ?? 0, m.at);
    }
  }

  typing(
    guildId: string,
    channelId: string,
    userId: string,
    at: number,
    ownUserIds: ReadonlySet<string>,
  ) {
    if (ownUserIds.has(userId)) return;
    this.channel(guildId, channelId).othersTypingAt = at;
  }

  /**
   * A place in the channel's run of bot messages for a message about to be sent, or null
   * when the bots' messages since the last human one (delivered or on their way) already
   * number `max`. Checked and taken in one step, so two agents (a lane's turn, the
   * orchestrator's answer) cannot both take the last place. The place is the message's
   * delivery wait: it counts until its message.created is seen, or lapses after `lapseMs`.
   */
  claim(guildId: string, channelId: string, content: string, max: number, lapseMs: number) {
    if (this.botRun(channelId) >= max) return null;
    const wait = this.expectDelivery(guildId, channelId, content);
    setTimeout(wait.cancel, lapseMs).unref();
    return wait;
  }

  /** Content sent before (by a process a restart replaced): its echo is an own message. */
  sentBefore(guildId: string, channelId: string, content: string): void {
    const c = this.channel(guildId, channelId);
    c.sent.push(norm(content));
    if (c.sent.length > KEEP) c.sent.shift();
  }

  /** Resolves with the message id once the beat's own message.created is seen. */
  expectDelivery(guildId: string, channelId: string, content: string) {
    const c = this.channel(guildId, channelId);
    const text = norm(content);
    this.sentBefore(guildId, channelId, content);
    let cancel = () => {};
    const delivered = new Promise<string>((resolve) => {
      const w: Waiter = { content: text, resolve };
      c.waiters.push(w);
      cancel = () => {
        const i = c.waiters.indexOf(w);
        if (i >= 0) c.waiters.splice(i, 1);
      };
    });
    return { delivered, cancel };
  }

  beginBurst(
    guildId: string,
    channelId: string,
    decisionId?: string,
  ): { interrupted: () => SeenMessage | undefined; end: () => void } {
    const c = this.channel(guildId, channelId);
    const burst: { decisionId?: string; interrupt?: SeenMessage } = { decisionId };
    c.burst = burst;
    return {
      interrupted: () => burst.interrupt,
      end: () => {
        if (c.burst === burst) c.burst = undefined;
      },
    };
  }

  /** The decision of the burst running in the channel, if one is. */
  burstOf(channelId: string): string | undefined {
    return this.channels.get(channelId)?.burst?.decisionId;
  }

  markBotTurn(guildId: string, channelId: string, at: number) {
    this.channel(guildId, channelId).lastBotTurnAt = at;
  }

  get(channelId: string) {
    const c = this.channels.get(channelId);
    return {
      guildId: c?.guildId,
      lastHumanAt: c?.lastHumanAt,
      lastMessageAt: c?.lastMessageAt,
      lastBotTurnAt: c?.lastBotTurnAt,
      othersTypingAt: c?.othersTypingAt,
      recent: c?.recent ?? [],
    };
  }

  /**
   * Bot messages since the channel's last human message, counting beats sent and not yet
   * seen delivered.
   */
  botRun(channelId: string): number {
    const c = this.channels.get(channelId);
    if (!c) return 0;
    let run = c.waiters.length;
    for (let i = c.recent.length - 1; i >= 0 && c.recent[i].authorIsBot; i--) run++;
    return run;
  }

  /** The newest human message of the channel, if the router saw one. */
  lastHuman(channelId: string): SeenMessage | undefined {
    const recent = this.channels.get(channelId)?.recent ?? [];
    for (let i = recent.length - 1; i >= 0; i--) if (!recent[i].authorIsBot) return recent[i];
    return undefined;
  }

  since(channelId: string, at: number): SeenMessage[] {
    return (this.channels.get(channelId)?.recent ?? []).filter((m) => m.at > at);
  }
}
