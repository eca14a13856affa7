import { createHash, randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  type ErrorCode,
  type RouterToolCall,
  type SkillInvokeRequest,
  type SkillInvokeResult,
  type SkillsListResult,
} from '@dirigent/contracts';
import {
  SkillError,
  SkillRunner,
  type ModelToolCall,
  type OpenAiTool,
  type TurnScope,
  type TurnSkills,
} from '@dirigent/skills';
import { Clock } from '@dirigent/service-kit';

export type { TurnScope };

const KNOWN: ReadonlySet<string> = new Set(Object.values(ErrorCodes));

function parseArgs(raw: string): Record<string, unknown> | SkillError {
  try {
    const v: unknown = JSON.parse(raw.trim() || '{}');
    if (typeof v === 'object' && v !== null && !Array.isArray(v))
      return v as Record<string, unknown>;
  } catch {
    // reported below
  }
  return new SkillError(ErrorCodes.BAD_REQUEST, 'args: the arguments must be a JSON object');
}

/**
 * The walled-garden skills in the router (docs/architecture.md, "Skills"): the catalog for
 * `skills.list` and the models, `skill.invoke`, and a turn's model tool calls. Every call
 * runs in the guild of its request or turn; a refused or failed call is a result (an error
 * the model reads, a `BAD_REQUEST`/`NOT_FOUND` reply), never a crash.
 */
@Injectable()
export class Skills implements TurnSkills {
  private readonly log = new Logger('router:skills');
  constructor(
    readonly runner: SkillRunner,
    private readonly clock: Clock,
  ) {}

  list(): SkillsListResult {
    return { skills: this.runner.list() };
  }

  /** The catalog as OpenAI tools. */
  tools(): OpenAiTool[] {
    return this.runner.openAiTools();
  }

  /** `Subjects.router.skillInvoke`. */
  async invoke(r: SkillInvokeRequest): Promise<SkillInvokeResult> {
    const id = randomUUID();
    try {
      return await this.runner.invoke({
        guildId: r.guildId,
        channelId: r.channelId,
        skillId: r.skillId,
        tool: r.tool,
        args: r.args,
        actor: { ...r.actor },
        ...(r.actor.userId ? { askedBy: r.actor.userId } : {}),
        reason: r.reason,
        seed: id,
        callId: `skill-${id}`,
        now: this.clock.now(),
      });
    } catch (e) {
      throw Skills.domainError(e);
    }
  }

  /**
   * One tool call of a turn's model: run it (or refuse it) and say how it went, both as the
   * `tool` message the model reads next and as the decision's record.
   */
  async call(
    turn: TurnScope,
    c: ModelToolCall,
    index: number,
  ): Promise<{ content: string; record: RouterToolCall }> {
    const started = this.clock.now();
    const tool = c.function.name;
    const skill = this.runner.skillOfTool(tool);
    const parsed = parseArgs(c.function.arguments ?? '');
    // On whose behalf: the turn's agent, for the member whose message it answers.
    const actor = {
      ...(turn.agentId ? { agentId: turn.agentId } : {}),
      ...(turn.userId ? { userId: turn.userId } : {}),
    };
    const base = {
      skillId: skill?.id ?? tool,
      tool,
      args: parsed instanceof SkillError ? c.function.arguments : parsed,
      requestedBy: actor,
    };
    const ms = () => Math.round(this.clock.now() - started);
    const failed = (e: unknown) => {
      const err =
        e instanceof SkillError ? `${e.code} ${e.message}` : `INTERNAL ${(e as Error).message}`;
      return {
        content: JSON.stringify({ error: err }),
        record: { ...base, status: 'error' as const, error: err, ms: ms() },
      };
    };
    if (!skill) return failed(new SkillError(ErrorCodes.NOT_FOUND, `no tool ${tool}`));
    if (parsed instanceof SkillError) return failed(parsed);
    const key = createHash('sha256')
      .update(`${turn.seed}\u0000${index}`)
      .digest('hex')
      .slice(0, 24);
    try {
      const out = await this.runner.invoke({
        guildId: turn.guildId,
        channelId: turn.channelId,
        skillId: skill.id,
        tool,
        args: parsed,
        actor,
        ...(turn.userId ? { askedBy: turn.userId } : {}),
        reason: turn.reason,
        seed: `${turn.seed}:tool:${index}`,
        callId: `tool-${key}`,
        now: this.clock.now(),
      });
      if (out.status === 'refused') {
        return {
          content: JSON.stringify({
            status: 'refused',
            reason: out.reason,
            note: 'nothing was done: tell the member so, kindly and in words',
          }),
          record: { ...base, status: 'refused', reason: out.reason, ms: ms() },
        };
      }
      if (out.status === 'proposed') {
        return {
          content: JSON.stringify({
            status: 'proposed',
            proposalId: out.proposalId,
            note: 'a moderator must approve this in the mod channel first',
          }),
          record: { ...base, status: 'proposed', proposalId: out.proposalId, ms: ms() },
        };
      }
      return {
        content: JSON.stringify({ status: 'done', result: out.result }),
        record: { ...base, status: 'done', result: out.result, ms: ms() },
      };
    } catch (e) {
      if (!(e instanceof SkillError))
        this.log.warn({ tool, err: (e as Error).message, guildId: turn.guildId }, 'skill failed');
      return failed(e);
    }
  }

  /** A skill's refusal as the contract's error (an unknown failure stays `INTERNAL`). */
  static domainError(e: unknown): DomainError {
    if (e instanceof DomainError) return e;
    if (e instanceof SkillError) {
      const code = (KNOWN.has(e.code) ? e.code : ErrorCodes.INTERNAL) as ErrorCode;
      const field = /^(args[^:\s]*): (.*)$/s.exec(e.message);
      return new DomainError(
        code,
        e.message,
        field ? [{ field: field[1], messages: [field[2]] }] : undefined,
      );
    }
    return new DomainError(ErrorCodes.INTERNAL, (e as Error).message);
  }
}
