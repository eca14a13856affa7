import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { SlashChannelRequest, Subjects } from '@dirigent/contracts';
import { SlashCommands } from '../application/slash-commands';

/** `Subjects.turn.slash` and `Subjects.turn.agentNames`: the ingest's doors. */
@Controller()
export class SlashHandler {
  constructor(private readonly slash: SlashCommands) {}

  @MessagePattern(Subjects.turn.slash.setMode)
  setMode(@Payload() r: SlashChannelRequest) {
    return this.slash.setMode(r);
  }

  @MessagePattern(Subjects.turn.slash.setShuffle)
  setShuffle(@Payload() r: SlashChannelRequest) {
    return this.slash.setShuffle(r);
  }

  @MessagePattern(Subjects.turn.slash.skip)
  skip(@Payload() r: SlashChannelRequest) {
    return this.slash.skip(r);
  }

  @MessagePattern(Subjects.turn.slash.status)
  status(@Payload() r: SlashChannelRequest) {
    return this.slash.status(r);
  }

  @MessagePattern(Subjects.turn.agentNames)
  agentNames() {
    return this.slash.agentNames();
  }
}
