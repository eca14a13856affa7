import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CreateChatChannelTool,
  CreateDiscussionChannelTool,
  CreateMembersChannelTool,
  DiscussionCompleteTool,
  RegisterTool,
  subject,
} from '@dirigent/contracts';
import { CreateChannel } from '../application/create-channel';
import { Discussions } from '../application/discussions';
import { RegisterAgent } from '../application/register-agent';

/** `dirigent.tool.*`: what agents may ask of Dirigent, on behalf of `callerAgentId`. */
@Controller()
export class ToolsHandler {
  constructor(
    private readonly createChannel: CreateChannel,
    private readonly discussions: Discussions,
    private readonly registerAgent: RegisterAgent,
  ) {}

  @MessagePattern(subject.tool('create-chat-channel'))
  createChat(@Payload() r: CreateChatChannelTool) {
    return this.createChannel.run(r.callerAgentId, r.guildId, r.name, r.participants, 'chat');
  }

  @MessagePattern(subject.tool('create-report-channel'))
  createReport(@Payload() r: CreateMembersChannelTool) {
    return this.createChannel.run(r.callerAgentId, r.guildId, r.name, r.members, 'report');
  }

  @MessagePattern(subject.tool('create-work-channel'))
  createWork(@Payload() r: CreateMembersChannelTool) {
    return this.createChannel.run(r.callerAgentId, r.guildId, r.name, r.members, 'work');
  }

  @MessagePattern(subject.tool('create-discussion-channel'))
  createDiscussion(@Payload() r: CreateDiscussionChannelTool) {
    return this.discussions.create(r);
  }

  @MessagePattern(subject.tool('discussion-complete'))
  completeDiscussion(@Payload() r: DiscussionCompleteTool) {
    return this.discussions.complete(r);
  }

  @MessagePattern(subject.tool('register'))
  register(@Payload() r: RegisterTool) {
    return this.registerAgent.run(r);
  }
}
