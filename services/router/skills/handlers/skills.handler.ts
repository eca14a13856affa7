import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { SkillInvokeRequest, Subjects } from '@dirigent/contracts';
import { Skills } from '../application/skills';

/** `Subjects.router.skillsList` and `Subjects.router.skillInvoke`. */
@Controller()
export class SkillsHandler {
  constructor(private readonly skills: Skills) {}

  @MessagePattern(Subjects.router.skillsList)
  list() {
    return this.skills.list();
  }

  @MessagePattern(Subjects.router.skillInvoke)
  invoke(@Payload() r: SkillInvokeRequest) {
    return this.skills.invoke(r);
  }
}
