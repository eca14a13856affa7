import { Injectable, Logger } from '@nestjs/common';
import type { RouterHeldBackEvent } from '@dirigent/contracts';
import { RouterOutbox } from './clients';

/**
 * What happens when the channel's bots reach their run of messages without a human one
 * (`MAX_BOT_RUN`) as an agent is about to post, whichever agent it is (a turn of the
 * disposition router, the orchestrator's answer): the rest is not sent, a mention that got
 * no message yet is answered with `reaction` on it (seen, and nothing added to the run), a
 * log line and the `held-back` event say so.
 */
@Injectable()
export class HoldBack {
  private readonly log = new Logger('router:bot-run');

  constructor(private readonly outbox: RouterOutbox) {}

  async run(guildId: string, channelId: string, e: RouterHeldBackEvent): Promise<void> {
    this.log.log(
      {
        decisionId: e.decisionId,
        channelId,
        agentId: e.agentId,
        sent: e.sent,
        reaction: e.reaction,
      },
      'bot run at its bound: the rest is held back',
    );
    if (e.reaction && e.inboundMessageId) {
      await this.outbox.addReaction(
        guildId,
        channelId,
        e.inboundMessageId,
        e.reaction,
        `react-held-${e.decisionId}`,
      );
    }
    await this.outbox.heldBack(guildId, channelId, e);
  }
}
