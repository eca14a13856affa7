import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  MemoryContextRequest,
  MemoryDossierRequest,
  MemoryEpochsRequest,
  MemoryForgetRequest,
  MemoryHighlightAddRequest,
  MemorySearchRequest,
  Subjects,
} from '@dirigent/contracts';
import { QueryLane } from '../adapters/postgres/query-lane';
import { AddHighlight } from '../application/add-highlight';
import { AssembleContext } from '../application/assemble-context';
import { ForgetUser } from '../application/forget-user';
import { GetDossier, ListEpochs } from '../application/memory-queries';
import { ForwardedSearch } from '../partitions/forwarded-search';

/**
 * `dirigent.memory.*` requests; the contract classes validate (BAD_REQUEST with field errors).
 * The reads (search, context, dossier, epochs) run on the query lane's own connections.
 */
@Controller()
export class MemoryQueryHandlers {
  constructor(
    private readonly searchMemory: ForwardedSearch,
    private readonly assembleContext: AssembleContext,
    private readonly getDossier: GetDossier,
    private readonly listEpochs: ListEpochs,
    private readonly addHighlight: AddHighlight,
    private readonly forgetUser: ForgetUser,
    private readonly lane: QueryLane,
  ) {}

  @MessagePattern(Subjects.memory.search)
  search(@Payload() r: MemorySearchRequest) {
    return this.lane.run(() => this.searchMemory.run(r));
  }

  @MessagePattern(Subjects.memory.context)
  context(@Payload() r: MemoryContextRequest) {
    return this.lane.run(() => this.assembleContext.run(r));
  }

  @MessagePattern(Subjects.memory.dossierGet)
  dossier(@Payload() r: MemoryDossierRequest) {
    return this.lane.run(() => this.getDossier.run(r));
  }

  @MessagePattern(Subjects.memory.epochsList)
  epochs(@Payload() r: MemoryEpochsRequest) {
    return this.lane.run(() => this.listEpochs.run(r));
  }

  @MessagePattern(Subjects.memory.highlightAdd)
  highlight(@Payload() r: MemoryHighlightAddRequest) {
    return this.addHighlight.run(r);
  }

  @MessagePattern(Subjects.memory.forget)
  forget(@Payload() r: MemoryForgetRequest) {
    return this.forgetUser.run(r);
  }
}
