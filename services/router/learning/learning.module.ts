import { Module } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { PostgresPersonas } from './adapters/postgres/persona-version.repository';
import { JudgeTurns } from './application/judge-turns';
import { PersonaLearning } from './application/persona-learning';
import { Personas } from './application/personas';
import { LearningStore, PersonaStore } from './application/ports';
import { PostgresLearning } from './adapters/postgres/learning.repository';
import { PersonaHandler } from './handlers/persona.handler';
import { Messaging } from '@dirigent/messaging';
import { JetStreamLearningSteps } from './adapters/learning-steps';
import { PostgresEngagement } from './adapters/postgres/engagement.repository';
import { LearningHistory } from './application/learning-history';
import { EngagementStore, LearningSteps } from './application/ports';
import { LearningHistoryHandler } from './handlers/learning-history.handler';

export { learningEntities } from './adapters/postgres/entities';

/**
 * The persona learning loop (docs/architecture.md, "Persona"): each built-in agent's
 * versioned persona (seeded once, the active version for each turn, the admin subjects) and
 * the reactions, replies and quotes of its messages and the room's judgement of its turns
 * (`JudgeTurns`, on durable timers) that move the guild's learned adjustments.
 */
@Module({
  controllers: [PersonaHandler, LearningHistoryHandler],
  providers: [
    // The control page's engagement view (`admin.learning.history`).
    {
      provide: EngagementStore,
      inject: [EntityManager],
      useFactory: (em: EntityManager) => new PostgresEngagement(em),
    },
    {
      provide: LearningSteps,
      inject: [Messaging],
      useFactory: (m: Messaging) => new JetStreamLearningSteps(m),
    },
    LearningHistory,
    {
      provide: PersonaStore,
      inject: [EntityManager],
      useFactory: (em: EntityManager) => new PostgresPersonas(em),
    },
    {
      provide: LearningStore,
      inject: [EntityManager],
      useFactory: (em: EntityManager) => new PostgresLearning(em),
    },
    Personas,
    PersonaLearning,
    JudgeTurns,
  ],
  exports: [Personas, PersonaLearning, JudgeTurns],
})
export class LearningModule {}
