import { Inject, Injectable, Optional } from '@nestjs/common';
import { NO_REPLY, type RouterToolCall } from '@dirigent/contracts';
import { runResearch } from '@dirigent/orchestrator';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import {
  neverDoText,
  PERSONA_LENS,
  RECALL_LENSES,
  personasFor,
  synthPurpose,
  type AgentPersona,
  type Disposition,
  type FollowupBias,
  type ResearchPersona,
  withoutMention,
} from '@dirigent/router-domain';
import { runSkillLoop, type LoopMessage } from '@dirigent/skills';
import type { RouterConfig } from '../config';
import { Skills } from '../skills/skills.module';
import { MemoryLenses, ModelGateway } from './clients';
import { type SubagentRun } from './stores';
import { withRecalled } from './recall-context';

export interface ComposeInput {
  guildId: string;
  channelId: string;
  agent: AgentPersona;
  disposition: Disposition;
  message?: {
    content: string;
    authorId: string;
    authorName?: string;
    messageId?: string;
    replyToMessageId?: string;
  };
  /** The channel's message before this one (what "pin that" points at), when known. */
  before?: { messageId: string; content: string; authorName?: string };
  bias?: FollowupBias;
  /** Beats withheld by an interruption, folded into this reply. */
  withheld?: string[];
  previous?: string;
  /** Recent authors and members: the filter of `contrasting` and the dossier lenses. */
  presentUserIds?: string[];
  /**
   * A memory question ("do you remember …"): besides the turn's lens, memory is searched for
   * what it asks about (recent and older), unless that lens already did.
   */
  recall?: boolean;
  /** The turn's seed: a tool call's randomness (dice) and its side effects' ids derive from it. */
  seed?: string;
}

/**
 * What memory is asked about: the message without the agent's address ("Dit, where …"),
 * which would find what the agent itself said rather than what the question asks about.
 */
const topicOf = (i: ComposeInput) =>
  i.message ? withoutMention(i.message.content, i.agent) || i.message.content : undefined;

export interface Composed {
  text: string;
  runs: SubagentRun[];
  models: string[];
  costUsd: number;
  /** The skill tool calls the synthesizer made (none when skills are off). */
  toolCalls: RouterToolCall[];
}

const PERSONA_PROMPTS: Record<ResearchPersona, string> = {
  'memory-archeologist':
    'You dig through the group’s past: find callbacks, parallels and “you said this before” material relevant to the message.',
  'participant-profiler':
    'You profile the people in the conversation: preferences, sensitivities, recent vibes that matter for a reply.',
  'topic-researcher': 'You find substantive history on the current topic in the archive.',
  comedian: 'You brainstorm two or three comedic angles on the message. Short.',
  contrarian: 'You argue against the obvious response to the message, briefly and concretely.',
};

const SHAPE_RULES: Record<Disposition['outputShape'], string> = {
  silent: '',
  'react-only': '',
  'single-line': 'Answer in one short line: no line breaks, no formatting.',
  'multi-line': 'Answer in one message; a few short paragraphs at most.',
  burst:
    'Answer as a quick burst of 2 to 5 short messages, as a person typing: separate them with a blank line.',
};

const BIAS_RULES: Record<FollowupBias, string> = {
  'go-deeper': 'You are coming back to your earlier message with a deeper take.',
  'self-correct': 'You are coming back to correct or refine something you said earlier.',
  'contrarian-self': 'You are coming back to argue against your own earlier take.',
  'add-nuance': 'You are coming back to add nuance to what you said earlier.',
  'callback-later': 'You are coming back to call back to something from earlier.',
};

const FORMALITY = ['very casual', 'casual', 'neutral', 'formal', 'very formal'];
const ENERGY = ['very calm', 'calm', 'even', 'lively', 'very energetic'];
const level = (words: string[], x: number) =>
  words[Math.min(words.length - 1, Math.max(0, Math.round(x * (words.length - 1))))];

/** The persona's tone bounds as an instruction (0..1 scales in words). */
export function toneRule(t: AgentPersona['toneBounds']): string {
  if (!t) return '';
  const span = (words: string[], [lo, hi]: readonly [number, number]) =>
    `${lo}–${hi} (${
      level(words, lo) === level(words, hi)
        ? level(words, lo)
        : `${level(words, lo)} to ${level(words, hi)}`
    })`;
  return `Tone, on scales of 0 to 1: formality ${span(FORMALITY, t.formality)}, energy ${span(ENERGY, t.energy)}. Stay within these bounds.`;
}

/** An empty answer, or the agents' "nothing to add" marker (the gateway's `no-reply` model). */
export const saysNothing = (text: string) => {
  const t = text.trim();
  return t === '' || t === NO_REPLY;
};

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  new Promise<T | 'timeout'>((resolve, reject) => {
    const t = setTimeout(() => resolve('timeout'), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    );
  });

/**
 * The writers' room and the performer: the research personas of the disposition in
 * parallel (each with its memory lens, purpose `subagent-research`, its own timeout),
 * then one synthesizer call (purpose `synth-low|mid|high`) with their material as a soft
 * `## research material` block.
 */
@Injectable()
export class ComposeReply {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
    private readonly models: ModelGateway,
    private readonly memory: MemoryLenses,
    private readonly clock: Clock,
    @Optional() private readonly skills?: Skills,
  ) {}

  async run(i: ComposeInput): Promise<Composed> {
    const [context, runs] = await Promise.all([
      this.context(i),
      Promise.all(personasFor(i.disposition).map((p) => this.research(p, i))),
    ]);
    const material = runs
      .filter((r) => r.status === 'success' && r.output.trim())
      .map((r) => `### ${r.persona}\n${r.output.trim()}`)
      .join('\n\n');
    const answer = await this.synthesize(i, [
      { role: 'system', content: this.system(i) },
      { role: 'user', content: this.user(i, context, material) },
    ]);
    const used = runs.filter((r) => r.model);
    return {
      text: answer.text,
      runs,
      models: [...new Set([...used.map((r) => r.model!), ...answer.models])],
      costUsd: answer.costUsd + used.reduce((s, r) => s + r.costUsd, 0),
      toolCalls: answer.toolCalls,
    };
  }

  /**
   * The turn's lens; on a memory question whose lens does not search the archive, with what
   * a recall lens finds on the question and the lens does not already hold.
   */
  private async context(i: ComposeInput): Promise<string> {
    const read = (lens: string) =>
      this.memory
        .context(i.guildId, i.channelId, lens, {
          topic: topicOf(i),
          focusUserId: i.message?.authorId,
          presentUserIds: i.presentUserIds,
        })
        .catch(() => '');
    const lens = i.disposition.contextStrategy;
    if (!i.recall || !i.message?.content.trim() || RECALL_LENSES.includes(lens)) return read(lens);
    const [own, recalled] = await Promise.all([read(lens), read(RECALL_LENSES[0])]);
    return withRecalled(own, recalled);
  }

  /**
   * The synthesizer's call: with the skill catalog as tools (at most 4 tool rounds, each
   * call run in the turn's guild and recorded), or a plain completion when skills are off.
   */
  private async synthesize(
    i: ComposeInput,
    messages: { role: 'system' | 'user'; content: string }[],
  ): Promise<{ text: string; models: string[]; costUsd: number; toolCalls: RouterToolCall[] }> {
    const purpose = synthPurpose(i.disposition.reasoningDepth);
    const timeoutMs = this.config.DIRIGENT_ROUTER_MODEL_TIMEOUT_MS;
    const skills = this.config.DIRIGENT_ROUTER_SKILLS ? this.skills : undefined;
    if (!skills) {
      const a = await this.models.chat(i.guildId, purpose, messages, timeoutMs);
      return { text: a.text, models: [a.model], costUsd: a.costUsd, toolCalls: [] };
    }
    const tools = skills.tools();
    const out = await runSkillLoop({
      skills,
      turn: {
        guildId: i.guildId,
        channelId: i.channelId,
        agentId: i.agent.id,
        // The asker: the tools run with the rights of the member whose message this answers.
        userId: i.message?.authorId,
        seed: i.seed ?? `${i.channelId}:${i.message?.content ?? ''}`,
        reason: i.message?.content.slice(0, 2000),
      },
      messages: messages as LoopMessage[],
      chat: (msgs, final) =>
        this.models.chatPort.chat({
          purpose,
          guildId: i.guildId,
          timeoutMs,
          body: { messages: msgs, max_tokens: 600, tools, tool_choice: final ? 'none' : 'auto' },
        }),
    });
    return {
      text: out.answer.content,
      models: out.models,
      costUsd: out.costUsd,
      toolCalls: out.toolCalls,
    };
  }

  /** Research runs end at the persona timeout; an error or timeout leaves the material out. */
  async research(persona: ResearchPersona, i: ComposeInput): Promise<SubagentRun> {
    const lens = PERSONA_LENS[persona];
    const started = this.clock.now();
    const timeout = this.config.DIRIGENT_ROUTER_PERSONA_TIMEOUT_MS;
    const work = (async () => {
      const context = await this.memory
        .context(i.guildId, i.channelId, lens, {
          topic: topicOf(i),
          focusUserId: i.message?.authorId,
          presentUserIds: i.presentUserIds,
        })
        .catch(() => '');
      const r = await runResearch(this.models.chatPort, {
        guildId: i.guildId,
        system: `${PERSONA_PROMPTS[persona]} Return findings only, 200 words at most.`,
        prompt: `## memory (${lens})\n${context || '(nothing)'}\n\n## message\n${i.message?.content ?? '(no message: an unprompted turn)'}`,
        timeoutMs: timeout,
        maxTokens: 400,
      });
      if (r.status === 'error') throw new Error(r.errorMessage);
      return { text: r.output, model: r.model, costUsd: r.costUsd ?? 0 };
    })();
    const base = { persona, lens, costUsd: 0, output: '' };
    try {
      const r = await withTimeout(work, timeout);
      const durationMs = this.clock.now() - started;
      if (r === 'timeout') return { ...base, status: 'timeout', durationMs };
      return {
        ...base,
        status: saysNothing(r.text) ? 'empty' : 'success',
        durationMs,
        model: r.model,
        costUsd: r.costUsd,
        output: r.text,
      };
    } catch (e) {
      return {
        ...base,
        status: 'error',
        durationMs: this.clock.now() - started,
        output: (e as Error).message,
      };
    }
  }

  private system(i: ComposeInput): string {
    const d = i.disposition;
    const banned = i.agent.bannedPhrases?.length
      ? `Never use these phrases: ${i.agent.bannedPhrases.map((p) => `“${p}”`).join(', ')}.`
      : '';
    const neverDo = i.agent.neverDo?.length
      ? `Never: ${i.agent.neverDo.map(neverDoText).join('; ')}.`
      : '';
    return [
      `You are ${i.agent.name}, a member of a Discord community, not an assistant.`,
      `Voice: ${d.voice}. Risk: ${d.riskAppetite === 'spicy' ? 'roasts and hot takes are fine, never cruel' : 'keep it kind'}.`,
      SHAPE_RULES[d.outputShape],
      i.bias ? BIAS_RULES[i.bias] : '',
      toneRule(i.agent.toneBounds),
      banned,
      neverDo,
      'The research material is raw material, not requirements: use what is useful, mostly let it inform without naming sources; an explicit callback is fine when it genuinely lands.',
    ]
      .filter(Boolean)
      .join('\n');
  }

  /** The ids a tool call needs (pin, thread on a message): this one, its parent, the one before. */
  private messageIds(i: ComposeInput): string {
    const m = i.message;
    if (!m?.messageId) return '';
    const lines = [`this message: ${m.messageId}`];
    if (m.replyToMessageId) lines.push(`it replies to: ${m.replyToMessageId}`);
    if (i.before) {
      const who = i.before.authorName ? `${i.before.authorName}: ` : '';
      lines.push(
        `the message before it: ${i.before.messageId} (${who}${i.before.content.slice(0, 80)})`,
      );
    }
    return lines.join('\n');
  }

  private user(i: ComposeInput, context: string, material: string): string {
    const parts: string[] = [];
    if (context) parts.push(`## context\n${context}`);
    if (i.previous) parts.push(`## what you said before\n${i.previous}`);
    if (i.withheld?.length)
      parts.push(`## what you were about to say when interrupted\n${i.withheld.join('\n\n')}`);
    parts.push(
      i.message
        ? `## message${i.message.authorName ? ` from ${i.message.authorName}` : ''}\n${i.message.content}`
        : '## message\n(none: you speak up unprompted)',
    );
    const ids = this.messageIds(i);
    if (ids) parts.push(`## message ids\n${ids}`);
    if (material) parts.push(`## research material\n${material}`);
    return parts.join('\n\n');
  }
}
