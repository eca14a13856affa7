import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { LearningHistoryRequest, Subjects } from '@dirigent/contracts';
import { LearningHistory } from '../application/learning-history';

/** `Subjects.admin.learningHistory`: the control page's engagement view of a guild's agent. */
@Controller()
export class LearningHistoryHandler {
  constructor(private readonly history: LearningHistory) {}

  @MessagePattern(Subjects.admin.learningHistory)
  run(@Payload() r: LearningHistoryRequest) {
    return this.history.run(r);
  }
}
