import { Injectable, Logger } from '@nestjs/common';
import type { TurnComplete } from '@dirigent/contracts';
import { Channels, RefusedError } from './channels';
import { Members } from './members';

/** An agent's turn-complete: empty advances at once, a real reply waits for its delivery. */
@Injectable()
export class CompleteTurn {
  private readonly log = new Logger('complete-turn');

  constructor(
    private readonly channels: Channels,
    private readonly members: Members,
  ) {}

  /** `publishedAt`: when JetStream stored the completion (ms since epoch). */
  async run(t: TurnComplete, publishedAt?: number): Promise<void> {
    const state = await this.channels.state(t.channelId);
    if (state.currentTurn?.agentId === t.agentId && state.currentTurn.phase === 'running') {
      await this.members.refreshIfBoundary(t.channelId, t.guildId, state);
    }
    try {
      await this.channels.execute(t.channelId, {
        type: 'CompleteTurn',
        data: {
          agentId: t.agentId,
          runId: t.runId,
          text: t.text,
          turnId: t.turnId ?? null,
          ...(publishedAt !== undefined && Number.isFinite(publishedAt) ? { publishedAt } : {}),
        },
      });
    } catch (e) {
      if (e instanceof RefusedError && e.refusal.code === 'NOT_CURRENT_SPEAKER') {
        this.log.log(
          { channelId: t.channelId, agentId: t.agentId, runId: t.runId },
          'turn-complete from an agent not holding the turn; ignored',
        );
        return;
      }
      throw e;
    }
  }
}
