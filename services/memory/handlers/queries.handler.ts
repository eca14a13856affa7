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
import { AddHighlight } from '../application/add-highlight';
import { AssembleContext } from '../application/assemble-context';
import { ForgetUser } from '../application/forget-user';
import { GetDossier, ListEpochs } from '../application/memory-queries';
import { ForwardedSearch } from '../partitions/forwarded-search';

/** `dirigent.memory.*` requests; the contract classes validate (BAD_REQUEST with field errors). */
@Controller()
export class MemoryQueryHandlers {
  constructor(
    private readonly searchMemory: ForwardedSearch,
    private readonly assembleContext: AssembleContext,
    private readonly getDossier: GetDossier,
    private readonly listEpochs: ListEpochs,
    private readonly addHighlight: AddHighlight,
    private readonly forgetUser: ForgetUser,
  ) {}

  @MessagePattern(Subjects.memory.search)
  search(@Payload() r: MemorySearchRequest) {
    return this.searchMemory.run(r);
  }

  @MessagePattern(Subjects.memory.context)
  context(@Payload() r: MemoryContextRequest) {
    return this.assembleContext.run(r);
  }

  @MessagePattern(Subjects.memory.dossierGet)
  dossier(@Payload() r: MemoryDossierRequest) {
    return this.getDossier.run(r);
  }

  @MessagePattern(Subjects.memory.epochsList)
  epochs(@Payload() r: MemoryEpochsRequest) {
    return this.listEpochs.run(r);
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
