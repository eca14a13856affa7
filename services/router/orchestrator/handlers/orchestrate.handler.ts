import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { OrchestrateRequest, Subjects } from '@dirigent/contracts';
import { Orchestrate } from '../application/orchestrate';

/** `Subjects.router.orchestrate`: answer directly or delegate (ARCHITECTURE.md, "Orchestrator"). */
@Controller()
export class OrchestrateHandler {
  constructor(private readonly orchestrate: Orchestrate) {}

  @MessagePattern(Subjects.router.orchestrate)
  run(@Payload() r: OrchestrateRequest) {
    return this.orchestrate.request(r);
  }
}
