import { Injectable } from '@nestjs/common';
import type { RouterDecisionsListRequest } from '@dirigent/contracts';
import { DecisionLog } from './stores';

/** `Subjects.router.decisionsList`: newest first, by guild, optionally channel, disposition, trigger. */
@Injectable()
export class ListDecisions {
  constructor(private readonly log: DecisionLog) {}

  async run(r: RouterDecisionsListRequest) {
    return {
      decisions: await this.log.list({
        guildId: r.guildId,
        channelId: r.channelId,
        dispositionId: r.dispositionId,
        trigger: r.trigger,
        limit: r.limit ?? 50,
      }),
    };
  }
}
