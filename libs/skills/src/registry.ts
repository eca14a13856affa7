import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { SkillListing } from '@dirigent/contracts';
import { dice, createThread, pinMoment, poll } from './bundle/direct';
import { define, gif, remind, time, weather } from './bundle/utility';
import { memorySearch, recallGroup, recallUser, summarizeWindow } from './bundle/memory';
import { archiveChannel, createChannel, manageRoles, proposeRestructure } from './bundle/steward';
import { journaled, type EffectJournal } from './journal';
import { judgeAsker } from './rights';
import {
  SkillError,
  type ProposalService,
  type Skill,
  type SkillActor,
  type SkillPorts,
  type ToolDescriptor,
} from './types';

/**
 * The walled garden: every skill there is, by id. Skills are modules of this repo listed
 * here; nothing is discovered from the filesystem, uploaded or fetched.
 */
export const SKILL_BUNDLE: readonly Skill[] = [
  memorySearch,
  recallUser,
  recallGroup,
  summarizeWindow,
  dice,
  poll,
  createThread,
  pinMoment,
  define,
  weather,
  gif,
  remind,
  time,
  createChannel,
  archiveChannel,
  manageRoles,
  proposeRestructure,
];

/** An OpenAI chat tool. */
export interface OpenAiTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** One call of a tool, wherever it comes from (`skill.invoke`, a model's tool call, a proposal). */
export interface SkillCall {
  guildId: string;
  channelId: string;
  skillId: string;
  tool: string;
  args: unknown;
  actor: SkillActor;
  /** The member whose message (or request) led to the call, when one did. */
  askedBy?: string;
  reason?: string;
  seed: string;
  callId: string;
  now: number;
}

export type SkillOutcome =
  | { status: 'done'; result: unknown }
  | { status: 'proposed'; proposalId: string }
  | { status: 'refused'; reason: string };

/** `instancePath` `/options/0` + the error → `args.options[0]`, the field a refusal names. */
function fieldOf(e: ErrorObject): string {
  let path = e.instancePath
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
    .join('');
  const p = e.params as { missingProperty?: string; additionalProperty?: string };
  if (p.missingProperty) path += `.${p.missingProperty}`;
  if (p.additionalProperty) path += `.${p.additionalProperty}`;
  return `args${path}`;
}

function firstProblem(errors: ErrorObject[]): string {
  // `if`/`oneOf` report their branches first and then themselves: name the concrete field.
  const e = errors.find((x) => x.keyword !== 'if' && x.keyword !== 'oneOf') ?? errors[0];
  const message =
    e.keyword === 'additionalProperties'
      ? 'is not an argument of this tool'
      : e.keyword === 'oneOf'
        ? 'give exactly one of the alternatives'
        : (e.message ?? 'is invalid');
  return `${fieldOf(e)}: ${message}`;
}

/**
 * The skills of {@link SKILL_BUNDLE} (or the given list), their tools' schemas compiled once
 * (ajv): lists them, offers them as OpenAI tools, and runs a call. A `direct` skill runs at
 * once; a `confirm` skill becomes a proposal (`ProposalService`) and runs only when the steward
 * calls {@link executeApproved}. The cost class is the skill's: nothing in a call changes it.
 *
 * @example
 * const skills = new SkillRunner(ports, proposals);
 * await skills.invoke({ guildId, channelId, skillId: 'dice', tool: 'dice',
 *   args: { notation: '2d6+1' }, actor: {}, seed: 's', callId: 'c', now: Date.now() });
 */
export class SkillRunner {
  private readonly skills = new Map<string, Skill>();
  private readonly byTool = new Map<string, { skill: Skill; tool: ToolDescriptor }>();
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(
    private readonly ports: SkillPorts,
    private readonly proposals: ProposalService,
    bundle: readonly Skill[] = SKILL_BUNDLE,
    /** With a journal, a call run again (same `callId`) does not repeat its Discord writes. */
    private readonly journal?: EffectJournal,
  ) {
    const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false });
    for (const skill of bundle) {
      if (this.skills.has(skill.id)) throw new Error(`skill ${skill.id} is listed twice`);
      if (!skill.invoke && skill.costClass === 'direct')
        throw new Error(`skill ${skill.id} runs at once but has no invoke`);
      this.skills.set(skill.id, skill);
      for (const tool of skill.tools) {
        if (this.byTool.has(tool.name)) throw new Error(`tool ${tool.name} is defined twice`);
        this.byTool.set(tool.name, { skill, tool });
        this.validators.set(tool.name, ajv.compile(tool.parameters));
      }
    }
  }

  list(): SkillListing[] {
    return [...this.skills.values()].map((s) => ({
      id: s.id,
      description: s.description,
      permissions: [...s.permissions],
      costClass: s.costClass,
      tools: s.tools.map((t) => t.name),
    }));
  }

  /** The catalog as OpenAI tools (what the synthesizer and the orchestrator are offered). */
  openAiTools(): OpenAiTool[] {
    return [...this.byTool.values()].map(({ tool }) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }

  /** The system prompt's catalog: one JSON line per skill (id, what it does, cost class). */
  catalog(): string {
    return [...this.skills.values()]
      .map((s) => JSON.stringify({ skill: s.id, use: s.catalogEntry, cost: s.costClass }))
      .join('\n');
  }

  /** The skill that owns a tool name (a model's function call), if any. */
  skillOfTool(tool: string): Skill | undefined {
    return this.byTool.get(tool)?.skill;
  }

  /** Throws `NOT_FOUND` (unknown skill or tool) or `BAD_REQUEST` naming the field. */
  private check(skillId: string, tool: string, args: unknown): Skill {
    const skill = this.skills.get(skillId);
    if (!skill) throw new SkillError('NOT_FOUND', `no skill ${skillId}`);
    if (!skill.tools.some((t) => t.name === tool))
      throw new SkillError('NOT_FOUND', `skill ${skillId} has no tool ${tool}`);
    const validate = this.validators.get(tool)!;
    if (!validate(args)) throw new SkillError('BAD_REQUEST', firstProblem(validate.errors ?? []));
    return skill;
  }

  /**
   * Runs a call: a `direct` skill at once, a `confirm` skill as a proposal. Asked by a member
   * (`actor.userId`), a skill that changes Discord runs at once only when that member holds
   * its permission in the target channel; otherwise it is proposed, or refused in words.
   */
  async invoke(call: SkillCall): Promise<SkillOutcome> {
    const skill = this.check(call.skillId, call.tool, call.args);
    const args = call.args as Record<string, unknown>;
    const refused = await skill.refusal?.(this.context(call, args, this.ports));
    if (refused) return { status: 'refused', reason: refused };
    let propose = skill.costClass === 'confirm';
    if (skill.requires && call.actor.userId) {
      const target = typeof args.channelId === 'string' ? args.channelId : call.channelId;
      const rights = await this.ports.discord.member(call.guildId, call.actor.userId, target);
      const verdict = judgeAsker(skill.requires, rights);
      if (verdict.kind === 'refuse') return { status: 'refused', reason: verdict.reason };
      propose ||= verdict.kind === 'propose';
    }
    if (propose) {
      const out = await this.proposals.request({
        guildId: call.guildId,
        channelId: call.channelId,
        skillId: skill.id,
        tool: call.tool,
        args,
        reason: call.reason ?? '',
        requestedBy: call.actor,
      });
      return 'refused' in out
        ? { status: 'refused', reason: out.refused }
        : { status: 'proposed', proposalId: out.proposalId };
    }
    return { status: 'done', result: await this.run(skill, call, args) };
  }

  /**
   * Runs an approved proposal's call (the steward, exactly once per proposal): checked again,
   * in the proposal's guild, whatever the skill's cost class.
   */
  async executeApproved(call: SkillCall): Promise<unknown> {
    const skill = this.check(call.skillId, call.tool, call.args);
    return this.run(skill, call, call.args as Record<string, unknown>);
  }

  private run(skill: Skill, call: SkillCall, args: Record<string, unknown>): Promise<unknown> {
    if (!skill.invoke)
      throw new SkillError('NOT_FOUND', `skill ${skill.id} is carried out by the steward`);
    return skill.invoke(
      this.context(
        call,
        args,
        this.journal
          ? { ...this.ports, discord: journaled(this.ports.discord, this.journal, call.callId) }
          : this.ports,
      ),
    );
  }

  private context(call: SkillCall, args: Record<string, unknown>, ports: SkillPorts) {
    return {
      guildId: call.guildId,
      channelId: call.channelId,
      actor: call.actor,
      ...(call.askedBy ? { askedBy: call.askedBy } : {}),
      tool: call.tool,
      args,
      seed: call.seed,
      now: call.now,
      callId: call.callId,
      ports,
    };
  }
}
