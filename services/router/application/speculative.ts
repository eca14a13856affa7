import { Inject, Injectable } from '@nestjs/common';
import { SpeculativeDue } from '@dirigent/contracts';
import { declareJob, all, predicate, Reactor, type DeclaredJob } from '@dirigent/reactor';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import {
  speculativeCheckAt,
  speculativeConditions,
  type AgentPersona,
  type SpeculativeSettings,
} from '@dirigent/router-domain';
import type { RouterConfig } from '../config';
import { ChannelActivity } from './channel-activity';
import { ExecuteTurn } from './execute-turn';
import { SPECULATIVE_DUE } from './schedule-followup';
import { SpeculativeRoom, type Snapshot } from './speculative-room';

/**
 * Speculative turns: the reactor job `speculative-turn`, a composite trigger per channel
 * and agent — its durable timer AND the agent's own floor AND quiet, no recent bot turn, a
 * recent human, budget, a seeded chance. Each human message re-arms the timer for the
 * moment the time conditions can first hold; there is no periodic check.
 */
@Injectable()
export class SpeculativeTurns {
  private readonly settings: SpeculativeSettings;

  constructor(
    @Inject(SERVICE_CONFIG) config: RouterConfig,
    private readonly activity: ChannelActivity,
    private readonly reactor: Reactor,
    private readonly execute: ExecuteTurn,
    private readonly room: SpeculativeRoom,
  ) {
    this.settings = { ...config.file.speculative };
  }

  /** The reactor job `speculative-turn` (registered from the service's `reactor-jobs.ts`). */
  jobs(): DeclaredJob[] {
    return [
      declareJob<SpeculativeDue, Snapshot>({
        name: 'speculative-turn',
        trigger: all<Snapshot>(
          SPECULATIVE_DUE,
          predicate('unmanaged', (s) => s.unmanaged),
          speculativeConditions(this.settings),
        ),
        parse: SpeculativeDue.create,
        lane: (due) => due.channelId,
        snapshot: (due) => this.snapshot(due),
        run: (due, { lineage, snapshot }) =>
          this.execute.run({
            guildId: due.guildId,
            channelId: due.channelId,
            agent: snapshot.agent!,
            trigger: 'speculative',
            mentioned: false,
            seed: snapshot.seed,
            lineage,
          }),
      }),
    ];
  }

  /**
   * Re-arms the channel's timer after a human message (at `humanAt`); `parentId` is the
   * decision on it. The time is a hint from what this process saw: the trigger's predicates
   * read the durable history when it fires, and a timer that fired early is armed again.
   */
  async arm(
    agent: AgentPersona,
    guildId: string,
    channelId: string,
    humanAt: number,
    parentId?: string,
  ): Promise<void> {
    if (!this.settings.enabled || agent.orchestrator) return;
    const seen = this.activity.get(channelId);
    const at = speculativeCheckAt(
      {
        lastHumanAt: Math.max(humanAt, seen.lastHumanAt ?? 0),
        lastMessageAt: Math.max(humanAt, seen.lastMessageAt ?? 0),
        lastBotTurnAt: seen.lastBotTurnAt,
      },
      this.settings,
    );
    const key = this.key(agent.id, channelId);
    if (at === null) return this.reactor.disarm(key);
    const data: SpeculativeDue = {
      guildId,
      channelId,
      agentId: agent.id,
      humanAt: new Date(humanAt).toISOString(),
    };
    await this.reactor.arm(SPECULATIVE_DUE, key, at, data, parentId);
  }

  private key(agentId: string, channelId: string): string {
    return `speculative:${agentId}:${channelId}`;
  }

  /**
   * A timer that came due while the time conditions do not hold yet (a bot turn or a
   * message since it was armed) is armed again for when they can: no periodic check.
   */
  private async rearmIfEarly(due: SpeculativeDue, s: Snapshot): Promise<void> {
    const at = speculativeCheckAt(s.activity, this.settings);
    if (at === null || at <= s.now) return;
    await this.reactor.arm(SPECULATIVE_DUE, this.key(due.agentId, due.channelId), at, due);
  }

  /** Read in the channel's lane; a timer that came due early is armed again. */
  private async snapshot(due: SpeculativeDue): Promise<Snapshot> {
    const snapshot = await this.room.read(due);
    if (snapshot.unmanaged) await this.rearmIfEarly(due, snapshot);
    return snapshot;
  }
}
