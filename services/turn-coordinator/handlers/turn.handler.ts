import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CheckTurnRequest, Subjects } from '@dirigent/contracts';
import { CheckTurn } from '../application/check-turn';

/** `Subjects.turn.check`: may this agent speak now? */
@Controller()
export class TurnHandler {
  constructor(private readonly checkTurn: CheckTurn) {}

  @MessagePattern(Subjects.turn.check)
  check(@Payload() r: CheckTurnRequest) {
    return this.checkTurn.run(r);
  }
}
