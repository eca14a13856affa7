import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { OrchestrateRequest, Subjects } from '@dirigent/contracts';
import { Orchestrate } from '../application/orchestrate';

/** `Subjects.router.orchestrate`: answer directly or delegate (docs/architecture.md, "Router and orchestrator"). */
@Controller()
export class OrchestrateHandler {
  constructor(private readonly orchestrate: Orchestrate) {}

  @MessagePattern(Subjects.router.orchestrate)
  run(@Payload() r: OrchestrateRequest) {
    return this.orchestrate.request(r);
  }
}
