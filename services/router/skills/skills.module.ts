import { Global, Module } from '@nestjs/common';
import { Messaging } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { SKILL_BUNDLE, SkillRunner } from '@dirigent/skills';
import type { RouterConfig } from '../config';
import { NatsDiscordActions } from './adapters/discord-actions';
import { NatsEffectJournal } from './adapters/effect-journal';
import { NatsSkillMemory } from './adapters/skill-memory';
import { RequestProposal } from '../steward/application/request-proposal';
import { Skills } from './application/skills';
import { SkillsHandler } from './handlers/skills.handler';

export { Skills, type TurnScope } from './application/skills';

/**
 * The walled-garden skills (docs/architecture.md, "Skills"): `skills.list`, `skill.invoke`
 * and the {@link Skills} the synthesizer and the orchestrator call tools through; a
 * `confirm` call (or one the asking member may not make) is proposed through the steward's
 * {@link RequestProposal}. Global,
 * so the router's turns and the orchestrator inject the same catalog.
 */
@Global()
@Module({
  controllers: [SkillsHandler],
  providers: [
    {
      // The steward executes approved proposals through this runner (ProposalActions).
      provide: SkillRunner,
      inject: [Messaging, SERVICE_CONFIG, RequestProposal],
      useFactory: (m: Messaging, c: RouterConfig, proposals: RequestProposal) =>
        new SkillRunner(
          {
            discord: new NatsDiscordActions(m, c.DIRIGENT_ROUTER_SKILL_TIMEOUT_MS),
            memory: new NatsSkillMemory(m, c.DIRIGENT_ROUTER_SKILL_TIMEOUT_MS),
          },
          proposals,
          SKILL_BUNDLE,
          new NatsEffectJournal(m),
        ),
    },
    Skills,
  ],
  exports: [Skills, SkillRunner],
})
export class SkillsModule {}
