import { Injectable } from '@nestjs/common';
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
  /** Set while a burst is being sent: a human message goes to it instead of a new route. */
  burst?: { interrupt?: SeenMessage };
  /** Content this router sent recently (a webhook echo of it is its own message). */
  sent: string[];
}

const KEEP = 100;
const norm = (s: string) => s.trim();

/**
 * What the router knows of each channel it has seen since it started: recent messages,
 * its own deliveries, who is typing and whether a burst is running. Guild-wide awareness
 * for prompts comes from memory; this is only for delivery, interruption and the reactor.
 */
@Injectable()
export class ChannelActivity {
  private readonly channels = new Map<string, Channel>();

  private channel(guildId: string, channelId: string): Channel {
    let c = this.channels.get(channelId);
    if (!c) {
      c = { guildId, recent: [], waiters: [], sent: [] };
      this.channels.set(channelId, c);
    }
    return c;
  }

  /**
   * Records a message. Returns `own` when it is the delivery of a beat this router sent,
   * `interrupt` when it is a human message claimed by a running burst, else `new`.
   */
  observe(m: SeenMessage, ownUserIds: ReadonlySet<string>): 'own' | 'interrupt' | 'new' {
    const c = this.channel(m.guildId, m.channelId);
    c.recent.push(m);
    if (c.recent.length > KEEP) c.recent.shift();
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
      if (c.burst) {
        c.burst.interrupt ??= m;
        return 'interrupt';
      }
    }
    return 'new';
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

  /** Resolves with the message id once the beat's own message.created is seen. */
  expectDelivery(guildId: string, channelId: string, content: string) {
    const c = this.channel(guildId, channelId);
    const text = norm(content);
    c.sent.push(text);
    if (c.sent.length > KEEP) c.sent.shift();
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
  ): { interrupted: () => SeenMessage | undefined; end: () => void } {
    const c = this.channel(guildId, channelId);
    const burst: { interrupt?: SeenMessage } = {};
    c.burst = burst;
    return {
      interrupted: () => burst.interrupt,
      end: () => {
        if (c.burst === burst) c.burst = undefined;
      },
    };
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
