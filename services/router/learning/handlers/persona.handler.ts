import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  LearningGetRequest,
  LearningResetRequest,
  PersonaGetRequest,
  PersonaHistoryRequest,
  PersonaListRequest,
  PersonaRollbackRequest,
  PersonaUpsertRequest,
  Subjects,
} from '@dirigent/contracts';
import { PersonaLearning } from '../application/persona-learning';
import { Personas } from '../application/personas';

/**
 * `Subjects.admin.persona*`: read, edit, list versions of and roll back a built-in agent's
 * persona; `Subjects.admin.learning*`: read and reset a guild's learned adjustments.
 */
@Controller()
export class PersonaHandler {
  constructor(
    private readonly personas: Personas,
    private readonly learning: PersonaLearning,
  ) {}

  @MessagePattern(Subjects.admin.personaGet)
  get(@Payload() r: PersonaGetRequest) {
    return this.personas.get(r);
  }

  @MessagePattern(Subjects.admin.personaList)
  list(@Payload() r: PersonaListRequest) {
    return this.personas.list(r);
  }

  @MessagePattern(Subjects.admin.personaUpsert)
  upsert(@Payload() r: PersonaUpsertRequest) {
    return this.personas.upsert(r);
  }

  @MessagePattern(Subjects.admin.personaVersions)
  versions(@Payload() r: PersonaGetRequest) {
    return this.personas.versions(r);
  }

  @MessagePattern(Subjects.admin.personaRollback)
  rollback(@Payload() r: PersonaRollbackRequest) {
    return this.personas.rollback(r);
  }

  @MessagePattern(Subjects.admin.learningGet)
  learningGet(@Payload() r: LearningGetRequest) {
    return this.learning.get(r);
  }

  @MessagePattern(Subjects.admin.learningReset)
  learningReset(@Payload() r: LearningResetRequest) {
    return this.learning.reset(r);
  }

  @MessagePattern(Subjects.admin.personaHistory)
  history(@Payload() r: PersonaHistoryRequest) {
    return this.personas.history(r);
  }
}
