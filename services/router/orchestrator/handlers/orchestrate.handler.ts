import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  OrchestrateRequest,
  RouterTasksCancelRequest,
  Subjects,
  type RouterTasksCancelResult,
} from '@dirigent/contracts';
import { Orchestrate } from '../application/orchestrate';
import { OrchestrateInDiscord } from '../application/orchestrate-in-discord';

/**
 * `Subjects.router.orchestrate`: answer directly or delegate (docs/architecture.md, "Router and
 * orchestrator"); `Subjects.router.tasksCancel`: `/dirigent cancel`.
 */
@Controller()
export class OrchestrateHandler {
  constructor(
    private readonly orchestrate: Orchestrate,
    private readonly inDiscord: OrchestrateInDiscord,
  ) {}

  @MessagePattern(Subjects.router.orchestrate)
  run(@Payload() r: OrchestrateRequest) {
    return this.orchestrate.request(r);
  }

  /** `/dirigent cancel`: the channel's running orchestrations and their tasks stop. */
  @MessagePattern(Subjects.router.tasksCancel)
  cancel(@Payload() r: RouterTasksCancelRequest): RouterTasksCancelResult {
    return { cancelled: this.inDiscord.cancelChannel(r.channelId) };
  }
}
