import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CheckTurnRequest, Subjects } from '@dirigent/contracts';
import type { RequestOptions } from '@dirigent/messaging';
import { CheckTurn } from '../application/check-turn';

/** `Subjects.turn.check`: may this agent speak now? */
@Controller()
export class TurnHandler {
  constructor(private readonly checkTurn: CheckTurn) {}

  /** Answered from memory: no ORM request context (`around: false`), see RequestOptions. */
  @MessagePattern(Subjects.turn.check, { around: false } satisfies RequestOptions)
  check(@Payload() r: CheckTurnRequest) {
    return this.checkTurn.run(r);
  }
}
