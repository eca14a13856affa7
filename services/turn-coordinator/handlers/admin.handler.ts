import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ChannelAdvanceRequest,
  ChannelGetRequest,
  IdentityListRequest,
  IdentityRemoveRequest,
  IdentityRescanRequest,
  IdentityUpsertRequest,
  SetModeRequest,
  SetShuffleRequest,
  SetWakeModeRequest,
  Subjects,
} from '@dirigent/contracts';
import { ChannelSettings } from '../application/channel-settings';
import { IdentityAdmin } from '../application/identity-admin';

/** `dirigent.admin.*`: the identity registry and channel settings. */
@Controller()
export class AdminHandler {
  constructor(
    private readonly identities: IdentityAdmin,
    private readonly channels: ChannelSettings,
  ) {}

  @MessagePattern(Subjects.admin.identityUpsert)
  identityUpsert(@Payload() r: IdentityUpsertRequest) {
    return this.identities.upsert(r);
  }

  @MessagePattern(Subjects.admin.identityRemove)
  identityRemove(@Payload() r: IdentityRemoveRequest) {
    return this.identities.remove(r);
  }

  @MessagePattern(Subjects.admin.identityList)
  identityList(@Payload() r: IdentityListRequest) {
    return this.identities.list(r);
  }

  @MessagePattern(Subjects.admin.identityRescan)
  identityRescan(@Payload() r: IdentityRescanRequest) {
    return this.identities.rescan(r);
  }

  @MessagePattern(Subjects.admin.channelSetMode)
  setMode(@Payload() r: SetModeRequest) {
    return this.channels.setMode(r);
  }

  @MessagePattern(Subjects.admin.channelSetShuffle)
  setShuffle(@Payload() r: SetShuffleRequest) {
    return this.channels.setShuffle(r);
  }

  @MessagePattern(Subjects.admin.channelSetWakeMode)
  setWakeMode(@Payload() r: SetWakeModeRequest) {
    return this.channels.setWakeMode(r);
  }

  @MessagePattern(Subjects.admin.channelAdvance)
  advance(@Payload() r: ChannelAdvanceRequest) {
    return this.channels.advance(r);
  }

  @MessagePattern(Subjects.admin.channelGet)
  get(@Payload() r: ChannelGetRequest) {
    return this.channels.get(r);
  }
}
