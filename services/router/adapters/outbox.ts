import {
  EnvelopeTypes,
  RouterEventTypes,
  Subjects,
  subject,
  PersonaEventTypes,
  type PersonaChangedEvent,
  type PersonaWeightsAdjustedEvent,
  type LearningAdjustedEvent,
  LearningEventTypes,
  type RouterBurstStoppedEvent,
  type RouterHeldBackEvent,
  type RouterDecision,
  type RouterFollowupEvent,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { RouterOutbox } from '../application/clients';

/** Discord commands, turn completions and the router's events, on JetStream. */
export class JetStreamOutbox extends RouterOutbox {
  constructor(private readonly messaging: Messaging) {
    super();
  }

  async sendMessage(
    guildId: string,
    channelId: string,
    content: string,
    asAgentId: string,
    id: string,
  ) {
    await this.messaging.publishEvent(
      Subjects.discord.cmdSendMessage,
      EnvelopeTypes.sendMessage,
      { guildId, channelId, content, purpose: 'agent-reply', asAgentId },
      { id },
    );
  }

  async addReaction(
    guildId: string,
    channelId: string,
    messageId: string,
    emoji: string,
    id: string,
  ) {
    await this.messaging.publishEvent(
      Subjects.discord.cmdAddReaction,
      EnvelopeTypes.addReaction,
      { guildId, channelId, messageId, emoji },
      { id },
    );
  }

  async typing(guildId: string, channelId: string) {
    await this.messaging.publishEvent(Subjects.discord.cmdTyping, EnvelopeTypes.typing, {
      guildId,
      channelId,
    });
  }

  async decision(d: RouterDecision) {
    await this.messaging.publishEvent(
      subject.routerEvent(d.guildId, d.channelId, 'decision'),
      RouterEventTypes.decision,
      d,
      { id: `decision-${d.decisionId}` },
    );
  }

  async followup(guildId: string, channelId: string, e: RouterFollowupEvent) {
    await this.messaging.publishEvent(
      subject.routerEvent(guildId, channelId, 'followup'),
      RouterEventTypes.followup,
      e,
      { id: `followup-${e.followupId}-${e.status}` },
    );
  }

  async heldBack(guildId: string, channelId: string, e: RouterHeldBackEvent) {
    await this.messaging.publishEvent(
      subject.routerEvent(guildId, channelId, 'held-back'),
      RouterEventTypes.heldBack,
      e,
      { id: `held-back-${e.decisionId}-${e.sent}` },
    );
  }

  async burstStopped(guildId: string, channelId: string, e: RouterBurstStoppedEvent) {
    await this.messaging.publishEvent(
      subject.routerEvent(guildId, channelId, 'burst-stopped'),
      RouterEventTypes.burstStopped,
      e,
      { id: `burst-stopped-${e.decisionId}` },
    );
  }

  async completeTurn(
    guildId: string,
    channelId: string,
    agentId: string,
    turnId: string,
    text: string,
  ) {
    await this.messaging.publishEvent(
      subject.turnComplete(channelId),
      EnvelopeTypes.turnComplete,
      { guildId, channelId, agentId, runId: `router-${turnId}`, turnId, text },
      { id: `router-complete-${agentId}-${turnId}` },
    );
  }

  async personaChanged(e: PersonaChangedEvent) {
    await this.messaging.publishEvent(
      Subjects.router.personaChanged,
      PersonaEventTypes.changed,
      e,
      { id: `persona-${e.agentId}-${e.version}` },
    );
  }

  async learningAdjusted(e: LearningAdjustedEvent) {
    const c = e.cause;
    await this.messaging.publishEvent(
      subject.learningAdjusted(e.guildId),
      LearningEventTypes.adjusted,
      e,
      {
        id: `learning-${e.agentId}-${c.messageId}-${c.userId ?? 'room'}-${c.signal}-${e.at}`,
      },
    );
  }

  async personaWeightsAdjusted(e: PersonaWeightsAdjustedEvent) {
    await this.messaging.publishEvent(
      Subjects.router.personaWeightsAdjusted,
      PersonaEventTypes.weightsAdjusted,
      e,
      { id: `persona-weights-${e.agentId}-${e.version}` },
    );
  }
}
