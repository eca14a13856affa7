import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  DispositionListRequest,
  DispositionRemoveRequest,
  DispositionUpsertRequest,
  RouterDecideRequest,
  RouterDecisionsListRequest,
  RouterReplayRequest,
  RouterWhatIfRequest,
  Subjects,
} from '@dirigent/contracts';
import { DecideDryRun } from '../application/decide-dry-run';
import { DispositionAdmin } from '../application/disposition-admin';
import { ListDecisions } from '../application/list-decisions';
import { ReplayDecision } from '../application/replay-decision';

/** The router's requests: the dry run, the decision log and its replay, the disposition admin. */
@Controller()
export class RouterHandler {
  constructor(
    private readonly dryRun: DecideDryRun,
    private readonly decisions: ListDecisions,
    private readonly dispositions: DispositionAdmin,
    private readonly replays: ReplayDecision,
  ) {}

  @MessagePattern(Subjects.router.decide)
  decide(@Payload() r: RouterDecideRequest) {
    return this.dryRun.run(r);
  }

  @MessagePattern(Subjects.router.decisionsList)
  list(@Payload() r: RouterDecisionsListRequest) {
    return this.decisions.run(r);
  }

  @MessagePattern(Subjects.router.replay)
  replay(@Payload() r: RouterReplayRequest) {
    return this.replays.run(r);
  }

  @MessagePattern(Subjects.router.whatif)
  whatif(@Payload() r: RouterWhatIfRequest) {
    return this.replays.whatIf(r);
  }

  @MessagePattern(Subjects.admin.dispositionList)
  dispositionList(@Payload() r: DispositionListRequest) {
    return this.dispositions.list(r);
  }

  @MessagePattern(Subjects.admin.dispositionUpsert)
  dispositionUpsert(@Payload() r: DispositionUpsertRequest) {
    return this.dispositions.upsert(r);
  }

  @MessagePattern(Subjects.admin.dispositionRemove)
  dispositionRemove(@Payload() r: DispositionRemoveRequest) {
    return this.dispositions.remove(r);
  }
}
