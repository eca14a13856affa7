import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { LlmBudgetGetRequest, Subjects } from '@dirigent/contracts';
import { GetBudget } from '../application/get-budget';

/** `Subjects.llm.budgetGet`: a guild's daily envelope (the router's budget pressure). */
@Controller()
export class BudgetHandler {
  constructor(private readonly budget: GetBudget) {}

  @MessagePattern(Subjects.llm.budgetGet)
  get(@Payload() r: LlmBudgetGetRequest) {
    return this.budget.run(r.guildId);
  }
}
