import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ReminderCancelRequest,
  RemindersListRequest,
  SkillInvokeRequest,
  Subjects,
} from '@dirigent/contracts';
import { Reminders } from '../application/reminders';
import { Skills } from '../application/skills';

/** `Subjects.router.skillsList`, `.skillInvoke`, `.remindersList` and `.reminderCancel`. */
@Controller()
export class SkillsHandler {
  constructor(
    private readonly skills: Skills,
    private readonly reminders: Reminders,
  ) {}

  @MessagePattern(Subjects.router.skillsList)
  list() {
    return this.skills.list();
  }

  @MessagePattern(Subjects.router.skillInvoke)
  invoke(@Payload() r: SkillInvokeRequest) {
    return this.skills.invoke(r);
  }

  @MessagePattern(Subjects.router.remindersList)
  listReminders(@Payload() r: RemindersListRequest) {
    return this.reminders.list(r);
  }

  @MessagePattern(Subjects.router.reminderCancel)
  cancelReminder(@Payload() r: ReminderCancelRequest) {
    return this.reminders.cancel(r);
  }
}
