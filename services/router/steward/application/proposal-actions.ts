import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { DomainError, ErrorCodes, type ProposalView } from '@dirigent/contracts';
import { SkillRunner } from '@dirigent/skills';
import { StewardDiscord } from './ports';
import { RestructureRun } from './restructure';

/** Runs an approved proposal's action; its result is recorded, a throw records `failed`. */
export type ProposalAction = (proposal: ProposalView) => Promise<unknown>;

/**
 * What an approved proposal executes. By default the skill system's own execution of the
 * call (`SkillRunner.executeApproved`, in the proposal's guild and channel, as its requester,
 * with `proposal-<id>` as the call id its posts de-duplicate on). A tool registered here runs
 * instead: `create_channel` is, so that a run resumed after a SIGKILL adopts the channel the
 * killed run made instead of making a second one; `propose_restructure` is, its steps run one
 * by one and journalled ({@link RestructureRun}).
 */
@Injectable()
export class ProposalActions {
  private readonly actions = new Map<string, ProposalAction>();
  private runner?: SkillRunner | null;

  constructor(
    private readonly discord: StewardDiscord,
    private readonly modules: ModuleRef,
    restructure: RestructureRun,
  ) {
    this.register('create_channel', (p) => this.createChannel(p));
    this.register('propose_restructure', (p) => restructure.execute(p));
  }

  register(tool: string, action: ProposalAction): void {
    this.actions.set(tool, action);
  }

  async execute(p: ProposalView): Promise<unknown> {
    const action = this.actions.get(p.tool);
    if (action) return action(p);
    const runner = this.skills();
    if (!runner) throw new DomainError(ErrorCodes.NOT_FOUND, `no action for tool ${p.tool}`);
    return runner.executeApproved({
      guildId: p.guildId,
      channelId: p.channelId,
      skillId: p.skillId,
      tool: p.tool,
      args: p.args,
      actor: p.requestedBy,
      reason: p.reason,
      seed: p.proposalId,
      callId: `proposal-${p.proposalId}`,
      now: Date.parse(p.at),
    });
  }

  /** The router's skill runner, when the skill system is part of it. */
  private skills(): SkillRunner | undefined {
    if (this.runner === undefined) {
      try {
        this.runner = this.modules.get(SkillRunner, { strict: false });
      } catch {
        this.runner = null;
      }
    }
    return this.runner ?? undefined;
  }

  /** Find-or-create by name (the skill's arguments), then its topic, posted once. */
  private async createChannel(p: ProposalView) {
    const name = p.args.name;
    if (typeof name !== 'string' || !/^[a-z0-9_-]{1,100}$/.test(name)) {
      throw new DomainError(ErrorCodes.BAD_REQUEST, 'args.name must be a channel name');
    }
    const existing = (await this.discord.channels(p.guildId))?.find((c) => c.name === name);
    const channelId = existing?.channelId ?? (await this.discord.createChannel(p.guildId, name));
    if (typeof p.args.topic === 'string' && p.args.topic) {
      const topic = `Topic: ${p.args.topic.slice(0, 1000)}`;
      await this.discord.post(p.guildId, channelId, topic, `proposal-${p.proposalId}-topic`);
    }
    return { channelId, name };
  }
}
