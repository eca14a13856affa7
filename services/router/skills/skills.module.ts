import { Global, Module } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { Messaging } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import {
  HttpGifSearch,
  OpenMeteoWeather,
  SKILL_BUNDLE,
  SkillRunner,
  type UtilityPorts,
} from '@dirigent/skills';
import type { RouterConfig } from '../config';
import { NatsDiscordActions } from './adapters/discord-actions';
import { NatsEffectJournal } from './adapters/effect-journal';
import { NatsSkillMemory } from './adapters/skill-memory';
import { RequestProposal } from '../steward/application/request-proposal';
import { ReminderRow } from './adapters/postgres/reminder.entity';
import { PostgresReminders } from './adapters/postgres/reminder.repository';
import { ReminderPoster, Reminders, ReminderStore } from './application/reminders';
import { Skills } from './application/skills';
import { SkillsHandler } from './handlers/skills.handler';

export { Skills, type TurnScope } from './application/skills';

export const skillsEntities = [ReminderRow];

/** The utility skills' providers from the configuration (weather and GIF search over HTTP). */
function utilityPorts(c: RouterConfig, reminders: Reminders): UtilityPorts {
  const timeoutMs = c.DIRIGENT_UTILITY_TIMEOUT_MS;
  return {
    timeZone: c.DIRIGENT_TIMEZONE,
    reminders,
    weather: new OpenMeteoWeather({
      geocodingUrl: c.DIRIGENT_GEOCODING_URL,
      forecastUrl: c.DIRIGENT_WEATHER_URL,
      timeoutMs,
    }),
    ...(c.DIRIGENT_GIF_PROVIDER && c.DIRIGENT_GIF_API_KEY
      ? {
          gif: new HttpGifSearch({
            provider: c.DIRIGENT_GIF_PROVIDER,
            apiKey: c.DIRIGENT_GIF_API_KEY,
            url: c.DIRIGENT_GIF_URL,
            timeoutMs,
          }),
        }
      : {}),
  };
}

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
      inject: [Messaging, SERVICE_CONFIG, RequestProposal, Reminders],
      useFactory: (m: Messaging, c: RouterConfig, proposals: RequestProposal, r: Reminders) =>
        new SkillRunner(
          {
            discord: new NatsDiscordActions(m, c.DIRIGENT_ROUTER_SKILL_TIMEOUT_MS),
            memory: new NatsSkillMemory(m, c.DIRIGENT_ROUTER_SKILL_TIMEOUT_MS),
            utility: utilityPorts(c, r),
          },
          proposals,
          SKILL_BUNDLE,
          new NatsEffectJournal(m),
        ),
    },
    {
      provide: ReminderStore,
      inject: [EntityManager],
      useFactory: (em: EntityManager) => new PostgresReminders(em),
    },
    {
      provide: ReminderPoster,
      inject: [Messaging, SERVICE_CONFIG],
      useFactory: (m: Messaging, c: RouterConfig) =>
        new NatsDiscordActions(m, c.DIRIGENT_ROUTER_SKILL_TIMEOUT_MS),
    },
    Reminders,
    Skills,
  ],
  exports: [Skills, SkillRunner],
})
export class SkillsModule {}
