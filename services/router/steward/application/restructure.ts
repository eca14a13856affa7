import { Injectable, Logger } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  type GuildChannelInfo,
  type ProposalView,
  type RoleInfo,
} from '@dirigent/contracts';
import {
  archivedName,
  parseRestructureStep,
  restructureStepText,
  type RestructureStep,
} from '@dirigent/router-domain';
import { roleRefusal } from '@dirigent/skills';
import { ArchiveHighlights, highlightLines } from './archive-highlights';

/** How far one step of a restructure ran. */
export interface JournalledStep {
  status: 'started' | 'done' | 'failed';
  result?: unknown;
  error?: string;
}

/** The steps' journal, keyed by proposal id and step index (`steward_restructure_step`). */
export abstract class RestructureJournal {
  abstract get(proposalId: string, stepIndex: number): Promise<JournalledStep | undefined>;
  abstract put(
    proposalId: string,
    stepIndex: number,
    text: string,
    step: JournalledStep,
  ): Promise<void>;
}

/** What a restructure asks of the Discord ingest; refusals throw with the ingest's code. */
export abstract class RestructureDiscord {
  abstract channels(guildId: string): Promise<GuildChannelInfo[]>;
  abstract createChannel(guildId: string, name: string): Promise<string>;
  abstract editChannel(
    guildId: string,
    channelId: string,
    change: { name?: string; categoryName?: string },
  ): Promise<void>;
  /** Nobody but the bot posts there any more (`@everyone` denied SendMessages). */
  abstract readOnly(guildId: string, channelId: string): Promise<void>;
  abstract roles(guildId: string): Promise<RoleInfo[]>;
  /** The bot's highest role position, and whether it owns the guild. */
  abstract botRank(guildId: string): Promise<{ position: number; owner: boolean }>;
  abstract createRole(guildId: string, name: string): Promise<string>;
  abstract post(guildId: string, channelId: string, content: string, id: string): Promise<void>;
}

const fail = (message: string) => new DomainError(ErrorCodes.BAD_REQUEST, message);

/**
 * Runs an approved `propose_restructure` (its `steps`, in plain words) step by step, in
 * order. Each step is journalled before and after its Discord calls, so a run resumed after a
 * SIGKILL skips the steps already done and redoes the interrupted one idempotently: a channel
 * it made is found by its name, a rename or a move already applied is seen as done, a role
 * of that name is the same role. Each outcome is posted in the mod channel (de-duplicated by
 * proposal and step); a failed step stops the run and its error names the step.
 */
@Injectable()
export class RestructureRun {
  private readonly log = new Logger('router:steward');

  constructor(
    private readonly journal: RestructureJournal,
    private readonly discord: RestructureDiscord,
    private readonly highlights: ArchiveHighlights,
  ) {}

  async execute(p: ProposalView): Promise<{ steps: number; results: unknown[] }> {
    const steps = Array.isArray(p.args.steps) ? p.args.steps.map(String) : [];
    if (!steps.length) throw fail('args.steps must list the steps');
    const results: unknown[] = [];
    for (const [i, text] of steps.entries()) {
      const seen = await this.journal.get(p.proposalId, i);
      if (seen?.status === 'done') {
        results.push(seen.result ?? null);
        continue;
      }
      const label = `Step ${i + 1}/${steps.length} (${text.slice(0, 120)})`;
      if (seen?.status === 'failed') throw this.stopped(label, seen.error ?? 'failed');
      const parsed = parseRestructureStep(text);
      let result: unknown;
      try {
        if (!parsed.ok) throw fail(parsed.error);
        await this.journal.put(p.proposalId, i, text, { status: 'started' });
        result = await this.apply(p, i, parsed.step, seen?.status === 'started');
      } catch (e) {
        const error = (e as Error).message.slice(0, 300);
        this.log.warn({ proposalId: p.proposalId, step: i, err: error }, 'restructure step failed');
        await this.say(p, i, `${label} failed: ${error}. The steps after it were not run.`);
        await this.journal.put(p.proposalId, i, text, { status: 'failed', error });
        throw this.stopped(label, error);
      }
      const done = parsed.ok ? restructureStepText(parsed.step) : text;
      await this.say(p, i, `${label} done: ${done}.`);
      await this.journal.put(p.proposalId, i, text, { status: 'done', result });
      results.push(result);
    }
    return { steps: steps.length, results };
  }

  private stopped(label: string, error: string) {
    return new DomainError(ErrorCodes.BAD_REQUEST, `${label} failed: ${error}`);
  }

  private async say(p: ProposalView, i: number, text: string) {
    if (!p.modChannelId) return;
    await this.discord.post(p.guildId, p.modChannelId, text, `restructure-${p.proposalId}-${i}`);
  }

  /** One step's Discord calls; `resumed`: an earlier run started it and was not seen to end. */
  private async apply(
    p: ProposalView,
    i: number,
    s: RestructureStep,
    resumed: boolean,
  ): Promise<unknown> {
    const guildId = p.guildId;
    const channels = await this.discord.channels(guildId);
    const named = (name: string) => channels.find((c) => c.name === name);
    switch (s.kind) {
      case 'create_channel': {
        const there = named(s.name);
        if (there && !resumed) throw fail(`#${s.name} already exists`);
        const channelId = there?.channelId ?? (await this.discord.createChannel(guildId, s.name));
        return { channelId, name: s.name };
      }
      case 'rename_channel': {
        const from = named(s.from);
        const to = named(s.to);
        if (!from && resumed && to) return { channelId: to.channelId, name: s.to };
        if (!from) throw fail(`there is no #${s.from}`);
        if (to) throw fail(`#${s.to} already exists`);
        await this.discord.editChannel(guildId, from.channelId, { name: s.to });
        return { channelId: from.channelId, name: s.to };
      }
      case 'archive_channel': {
        const target = named(s.name) ?? (resumed ? named(archivedName(s.name)) : undefined);
        if (!target) throw fail(`there is no #${s.name}`);
        // Said in the channel before it closes: why, and what memory keeps of it.
        const why = typeof p.args.summary === 'string' ? p.args.summary.slice(0, 1000) : '';
        const kept = await this.highlights.keep(guildId, target.channelId, why || s.name);
        const said = [`This channel is archived by the moderators.${why ? ` ${why}` : ''}`];
        await this.discord.post(
          guildId,
          target.channelId,
          [...said, ...highlightLines(kept)].join('\n').slice(0, 2000),
          `restructure-${p.proposalId}-${i}-summary`,
        );
        await this.discord.readOnly(guildId, target.channelId);
        const name = archivedName(s.name);
        if (target.name !== name)
          await this.discord.editChannel(guildId, target.channelId, { name });
        return { channelId: target.channelId, name, highlights: kept.length };
      }
      case 'move_channel': {
        const target = named(s.name);
        if (!target) throw fail(`there is no #${s.name}`);
        await this.discord.editChannel(guildId, target.channelId, { categoryName: s.category });
        return { channelId: target.channelId, category: s.category };
      }
      case 'create_role': {
        // The role safe list: an existing role of that name may not carry a moderator's right
        // or sit at or above the bot; a new one is made without permissions.
        const [roles, rank] = await Promise.all([
          this.discord.roles(guildId),
          this.discord.botRank(guildId),
        ]);
        const refused = roleRefusal(
          roles.find((r) => r.name === s.name),
          rank,
        );
        if (refused) throw new DomainError(ErrorCodes.FORBIDDEN, refused);
        return { roleId: await this.discord.createRole(guildId, s.name), name: s.name };
      }
      default: {
        const never: never = s;
        return never;
      }
    }
  }
}
