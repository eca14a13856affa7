import { randomUUID } from 'node:crypto';
import {
  compareSnowflakes,
  NO_REPLY,
  Subjects,
  type MemoryHit,
  type Reply,
} from '@dirigent/contracts';
import type { FakeDiscord } from '@dirigent/discord-fake';
import { askedWords, onlyAsks, overlap } from '@dirigent/llm';
import { withoutMention } from '@dirigent/router-domain';
import type { Messaging } from '@dirigent/messaging';
import { RelayClient, type GrantSubscription, type GrantedEvent } from '@dirigent/relay-client';

export interface DemoAgentSpec {
  agentId: string;
  name: string;
  /** The agent's own Discord bot user. */
  userId: string;
}

/** An agent a message may name: by mention (`<@id>`), `@Name` or its name as a word. */
export interface Nameable {
  name: string;
  userId: string;
}

const escapeRe = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `content` names `agent` (`<@id>`, `@Dit`, "Dit, …", "thanks dit"). */
export function names(content: string, agent: Nameable): boolean {
  if (content.includes(`<@${agent.userId}>`) || content.includes(`<@!${agent.userId}>`))
    return true;
  return new RegExp(`(^|[^\\p{L}\\p{N}_])@?${escapeRe(agent.name)}(?![\\p{L}\\p{N}_])`, 'iu').test(
    content,
  );
}

/**
 * What a demo agent says, given the channel so far: pure, so it is tested alone. A message
 * that names other agents (`others`) and not this one is theirs to answer: the demo agents
 * leave "@Dit …" to Dit, as the router's agents leave a message addressed to someone else.
 */
export function demoAgentDecision(
  agentUserId: string,
  messages: readonly { id: string; authorId: string; authorIsBot: boolean; content: string }[],
  self?: Nameable,
  others: readonly Nameable[] = [],
): { reply: false } | { reply: true; prompt: string; messageId: string } {
  const lastHuman = [...messages].reverse().find((m) => !m.authorIsBot);
  if (!lastHuman) return { reply: false };
  const toOther = others.some((o) => o.userId !== agentUserId && names(lastHuman.content, o));
  if (toOther && !(self && names(lastHuman.content, self))) return { reply: false };
  const answered = messages.some(
    (m) => m.authorId === agentUserId && compareSnowflakes(m.id, lastHuman.id) > 0,
  );
  return answered
    ? { reply: false }
    : { reply: true, prompt: lastHuman.content, messageId: lastHuman.id };
}

/**
 * The best memory hit that is not the message being answered, nor only a question, and is a
 * known person's (not a bot's, nor a webhook's: Dit and Molt speak through webhooks), as a line
 * of the prompt's `## memory` section (`Name: text`): the agents recall what people said,
 * never each other. Best is the one sharing the most words with `question` (memory's order
 * among equals): "what did I say I would bring?" recalls "I am bringing lemonade" even when
 * memory ranks another line of the same person first.
 */
export function memoryRecall(
  hits: readonly MemoryHit[],
  answering: string,
  author: (authorId: string | undefined) => { name: string; bot: boolean } | undefined,
  question = '',
): string | null {
  const asked = askedWords(question);
  let best: { line: string; shared: number } | null = null;
  for (const hit of hits) {
    if (hit.messageId === answering || author(hit.authorId)?.bot !== false) continue;
    // A question ("where is the picnic?") answers nothing: the next hit may.
    if (onlyAsks(hit.text)) continue;
    const text = wholeSentences(hit.text.trim(), RECALL_MAX_CHARS);
    if (!text) continue;
    const shared = overlap(text, asked);
    if (best && shared <= best.shared) continue;
    const name = author(hit.authorId)?.name;
    best = { line: `${name ? `${name}: ` : ''}${text}`, shared };
  }
  return best?.line ?? null;
}

const RECALL_MAX_CHARS = 300;

/**
 * The text, or as many of its first sentences as fit in `max` characters: a recalled line is
 * never cut inside a sentence (the offline model quotes it as said). Empty when even its
 * first sentence is longer.
 */
export function wholeSentences(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = '';
  for (const s of text.split(/(?<=[.!?])\s+(?=\S)/)) {
    const next = out ? `${out} ${s}` : s;
    if (next.length > max) break;
    out = next;
  }
  return out;
}

/**
 * A demo agent runtime: it joins through the relay client exactly as an outside runtime
 * would (durable grant consumer, check-turn, turn-complete), answers each new human
 * message once through the model gateway (`purpose: agent`; the offline model unless
 * configured otherwise) and then passes with `NO_REPLY`, so a conversation settles and
 * the channel goes dormant. Its replies are posted to the local Discord as its own bot.
 */
export class DemoAgent {
  private relay?: RelayClient;
  private sub?: GrantSubscription;

  constructor(
    readonly spec: DemoAgentSpec,
    private readonly deps: {
      natsUrl: string;
      messaging: Messaging;
      discord: FakeDiscord;
      durable: string;
      replyDelayMs: number;
      /** The guild's other agents: a message naming one of them (and not this one) is theirs. */
      others?: readonly Nameable[];
      log: (line: string) => void;
    },
  ) {}

  async start(): Promise<void> {
    this.relay = await RelayClient.connect(this.deps.natsUrl, {
      name: `demo-${this.spec.agentId}`,
    });
    this.sub = await this.relay.onGranted({
      durable: this.deps.durable,
      agentId: this.spec.agentId,
      handler: (g) => this.onGranted(g),
    });
  }

  /** Stops hearing grants; `forget` also deletes the durable consumer (throwaway worlds). */
  async stop(forget = false): Promise<void> {
    await this.sub?.stop();
    if (forget) await this.relay?.deleteDurable(this.deps.durable).catch(() => undefined);
    await this.relay?.close();
  }

  private async onGranted(grant: GrantedEvent): Promise<void> {
    const relay = this.relay!;
    const { guildId, channelId } = grant;
    const check = await relay.checkTurn({ guildId, channelId, agentId: this.spec.agentId });
    if (!check.allowed) return;
    const discord = this.deps.discord;
    if (!discord.channels.has(channelId)) return;
    const messages = discord.channelMessages(channelId).map((m) => ({
      id: m.id,
      authorId: m.authorId,
      authorIsBot: discord.users.get(m.authorId)?.bot ?? true,
      content: m.content,
    }));
    const decision = demoAgentDecision(this.spec.userId, messages, this.spec, this.deps.others);
    let text = NO_REPLY;
    if (decision.reply) {
      const me = { id: this.spec.agentId, name: this.spec.name, discordUserId: this.spec.userId };
      const query = withoutMention(decision.prompt, me) || decision.prompt;
      const recall = await this.recall(guildId, channelId, query, decision.messageId);
      const from = messages.find((m) => m.id === decision.messageId)?.authorId;
      const prompt = [
        `## message from ${this.author(from)?.name ?? 'someone'}`,
        decision.prompt,
        ...(recall ? ['', '## memory', recall] : []),
      ].join('\n');
      text = await this.think(guildId, prompt);
    }
    if (text.trim() !== '' && text.trim() !== NO_REPLY) {
      if (this.deps.replyDelayMs) await new Promise((r) => setTimeout(r, this.deps.replyDelayMs));
      discord.postMessage({ channelId, authorId: this.spec.userId, content: text });
    }
    await relay.completeTurn({
      guildId,
      channelId,
      agentId: this.spec.agentId,
      runId: randomUUID(),
      text,
    });
  }

  /**
   * One memory hit on the question through `Subjects.memory.search`, for the channel the reply
   * is posted in (only what its audience may see); none when memory is away.
   */
  private async recall(
    guildId: string,
    channelId: string,
    query: string,
    answering: string,
  ): Promise<string | null> {
    const reply: Reply<{ hits: MemoryHit[] }> = await this.deps.messaging
      .request<{
        hits: MemoryHit[];
      }>(
        Subjects.memory.search,
        {
          guildId,
          forChannelId: channelId,
          query: query.slice(0, 2000),
          k: 5,
          layers: ['archive', 'highlights'],
        },
        2000,
      )
      .catch((e: Error) => ({ ok: false, error: { code: 'UNAVAILABLE', message: e.message } }));
    if (!reply.ok) {
      this.deps.log(`${this.spec.agentId}: memory search failed (${reply.error.message})`);
      return null;
    }
    return memoryRecall(reply.data.hits, answering, (id) => this.author(id), query);
  }

  private author(id: string | undefined): { name: string; bot: boolean } | undefined {
    const user = id ? this.deps.discord.users.get(id) : undefined;
    return user ? { name: user.globalName ?? user.username, bot: !!user.bot } : undefined;
  }

  private async think(guildId: string, prompt: string): Promise<string> {
    const reply: Reply<{ completion: { choices: { message: { content: string | null } }[] } }> =
      await this.deps.messaging.request(
        Subjects.llm.chat,
        {
          guildId,
          purpose: 'agent',
          request: {
            model: 'purpose:agent',
            messages: [
              {
                role: 'system',
                content: `You are ${this.spec.name}, a friendly demo agent in a Discord community. Reply to the message in a sentence or two.`,
              },
              { role: 'user', content: prompt },
            ],
          },
        },
        15_000,
      );
    if (!reply.ok) {
      this.deps.log(
        `${this.spec.agentId}: model gateway refused (${reply.error.message}); passing`,
      );
      return NO_REPLY;
    }
    return reply.data.completion.choices[0]?.message.content ?? NO_REPLY;
  }
}
