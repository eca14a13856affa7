import { Inject, Injectable, Optional } from '@nestjs/common';
import type { MessageCreated } from '@dirigent/contracts';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { gateReply, isMentioned, MAX_BOT_RUN, type AgentPersona } from '@dirigent/router-domain';
import type { RouterConfig } from '../config';
import { OrchestrateInDiscord } from '../orchestrator/orchestrator.module';
import { ChannelActivity } from './channel-activity';
import { HoldBack } from './hold-back';
import { Personas } from '../learning/application/personas';
import { DecisionLog } from './stores';

/** The orchestrator's answer to a mention when the channel's bot run has no place for it. */
const HELD_BACK_REACTION = '👀';

/**
 * A mention of an agent with `orchestrator: true`, answered by the orchestrator off the
 * channel's lane (as tasks): its answers pass the persona's gates and take places in the
 * channel's bot run as the disposition router's do; a deleted message cancels it.
 */
@Injectable()
export class MentionOrchestration {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
    private readonly decisions: DecisionLog,
    private readonly personas: Personas,
    private readonly activity: ChannelActivity,
    private readonly holdBack: HoldBack,
    @Optional() private readonly orchestrator?: OrchestrateInDiscord,
  ) {}

  async run(agent: AgentPersona, m: MessageCreated, resumed: boolean): Promise<void> {
    if (!isMentioned(agent, m) || m.authorId === agent.discordUserId || m.authorIsBot) return;
    // A resumed message whose orchestration started before the restart: its tasks were
    // reported failed at start; it is not asked again.
    if (resumed && (await this.decisions.decidedOn(m.messageId, agent.id))) return;
    if (resumed && this.orchestrator && (await this.orchestrator.started(m.messageId))) return;
    if (!this.orchestrator) return;
    const persona = await this.personas.forTurn(agent);
    const lapseMs = this.config.DIRIGENT_ROUTER_BEAT_TIMEOUT_MS;
    await this.orchestrator.run(agent, m, {
      version: persona.personaVersion,
      gate: (text) => gateReply(text, persona),
      claim: (content) =>
        this.activity.claim(m.guildId, m.channelId, content, MAX_BOT_RUN, lapseMs) !== null,
      heldBack: (decisionId, sent, withheld) =>
        this.holdBack.run(m.guildId, m.channelId, {
          decisionId,
          agentId: agent.id,
          inboundMessageId: m.messageId,
          sent,
          withheld,
          ...(sent === 0 ? { reaction: HELD_BACK_REACTION } : {}),
        }),
    });
  }

  /** The message was deleted: an orchestration it started stops and answers nothing. */
  cancel(messageId: string): void {
    this.orchestrator?.cancel(messageId);
  }
}
