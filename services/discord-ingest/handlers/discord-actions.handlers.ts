import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AssignRoleRequest,
  CreatePollRequest,
  CreateRoleRequest,
  CreateThreadRequest,
  EditChannelRequest,
  MemberPermissionsQuery,
  PinMessageRequest,
  RolesQuery,
  SetChannelPermissionsRequest,
  Subjects,
} from '@dirigent/contracts';
import { AssignRole } from '../application/assign-role';
import { CreatePoll } from '../application/create-poll';
import { CreateRole } from '../application/create-role';
import { CreateThread } from '../application/create-thread';
import { ListRoles } from '../application/list-roles';
import { MemberPermissions } from '../application/member-permissions';
import { PinMessage } from '../application/pin-message';
import { SetChannelPermissions } from '../application/set-channel-permissions';
import { EditChannel } from '../application/edit-channel';

/** The steward's Discord actions over NATS request/reply (contract part 3). */
@Controller()
export class DiscordActionHandlers {
  constructor(
    private readonly threads: CreateThread,
    private readonly pins: PinMessage,
    private readonly roles: CreateRole,
    private readonly assignments: AssignRole,
    private readonly permissions: SetChannelPermissions,
    private readonly polls: CreatePoll,
    private readonly memberPermissions: MemberPermissions,
    private readonly roleList: ListRoles,
    private readonly edits: EditChannel,
  ) {}

  @MessagePattern(Subjects.discord.rpcEditChannel)
  editChannel(@Payload() r: EditChannelRequest) {
    return this.edits.run(r);
  }

  @MessagePattern(Subjects.discord.rpcCreateThread)
  createThread(@Payload() r: CreateThreadRequest) {
    return this.threads.run(r);
  }

  @MessagePattern(Subjects.discord.rpcPinMessage)
  pinMessage(@Payload() r: PinMessageRequest) {
    return this.pins.run(r);
  }

  @MessagePattern(Subjects.discord.rpcCreateRole)
  createRole(@Payload() r: CreateRoleRequest) {
    return this.roles.run(r);
  }

  @MessagePattern(Subjects.discord.rpcAssignRole)
  assignRole(@Payload() r: AssignRoleRequest) {
    return this.assignments.run(r);
  }

  @MessagePattern(Subjects.discord.rpcSetChannelPermissions)
  setChannelPermissions(@Payload() r: SetChannelPermissionsRequest) {
    return this.permissions.run(r);
  }

  @MessagePattern(Subjects.discord.rpcCreatePoll)
  createPoll(@Payload() r: CreatePollRequest) {
    return this.polls.run(r);
  }

  @MessagePattern(Subjects.discord.queryMemberPermissions)
  memberPermissionsOf(@Payload() q: MemberPermissionsQuery) {
    return this.memberPermissions.run(q);
  }

  @MessagePattern(Subjects.discord.queryRoles)
  rolesOf(@Payload() q: RolesQuery) {
    return this.roleList.run(q);
  }
}
