import { StewardEventTypes, subject, type ProposalView } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { StewardEvents } from '../application/ports';

/** `dirigent.steward.evt.<g>.proposal` on JetStream. */
export class JetStreamStewardEvents extends StewardEvents {
  constructor(private readonly messaging: Messaging) {
    super();
  }

  async proposal(view: ProposalView, causeId: string): Promise<void> {
    await this.messaging.publishEvent(
      subject.stewardProposal(view.guildId),
      StewardEventTypes.proposal,
      view,
      { id: `steward-${causeId}` },
    );
  }
}
