import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import {
  CreateChatChannelTool,
  CreateDiscussionChannelTool,
  CreateMembersChannelTool,
  DiscussionCompleteTool,
  MASTER_INSTANCE,
  RegisterTool,
  subject,
  type ToolName,
} from '@dirigent/contracts';
import type { NatsRequestContext } from '@dirigent/messaging';
import { CreateChannel } from '../application/create-channel';
import { Discussions } from '../application/discussions';
import { Identities } from '../application/identities';
import { RegisterAgent } from '../application/register-agent';
import { instanceOf } from './relay.handler';

/** The tool's subject, and the same as stamped by any relay instance's account. */
const both = (name: ToolName) => [subject.tool(name), subject.relayed('*', subject.tool(name))];

/**
 * `dirigent.tool.*`: what agents may ask of Dirigent, on behalf of `callerAgentId`. The same
 * tools arrive from relay instances as `dirigent.relay.<instance>.tool.*` (the relay's NATS
 * account stamps `<instance>`): the caller must then be an agent bound to that instance.
 */
@Controller()
export class ToolsHandler {
  constructor(
    private readonly createChannel: CreateChannel,
    private readonly discussions: Discussions,
    private readonly registerAgent: RegisterAgent,
    private readonly identities: Identities,
  ) {}

  @MessagePattern(both('create-chat-channel'))
  async createChat(@Payload() r: CreateChatChannelTool, @Ctx() ctx: NatsRequestContext) {
    await this.identities.assertActsFor(r.callerAgentId, instanceOf(ctx));
    return this.createChannel.run(r.callerAgentId, r.guildId, r.name, r.participants, 'chat');
  }

  @MessagePattern(both('create-report-channel'))
  async createReport(@Payload() r: CreateMembersChannelTool, @Ctx() ctx: NatsRequestContext) {
    await this.identities.assertActsFor(r.callerAgentId, instanceOf(ctx));
    return this.createChannel.run(r.callerAgentId, r.guildId, r.name, r.members, 'report');
  }

  @MessagePattern(both('create-work-channel'))
  async createWork(@Payload() r: CreateMembersChannelTool, @Ctx() ctx: NatsRequestContext) {
    await this.identities.assertActsFor(r.callerAgentId, instanceOf(ctx));
    return this.createChannel.run(r.callerAgentId, r.guildId, r.name, r.members, 'work');
  }

  @MessagePattern(both('create-discussion-channel'))
  async createDiscussion(
    @Payload() r: CreateDiscussionChannelTool,
    @Ctx() ctx: NatsRequestContext,
  ) {
    await this.identities.assertActsFor(r.callerAgentId, instanceOf(ctx));
    return this.discussions.create(r);
  }

  @MessagePattern(both('discussion-complete'))
  async completeDiscussion(@Payload() r: DiscussionCompleteTool, @Ctx() ctx: NatsRequestContext) {
    await this.identities.assertActsFor(r.callerAgentId, instanceOf(ctx));
    return this.discussions.complete(r);
  }

  /** Binds the caller to the instance it registers from; another instance's agent: `FORBIDDEN`. */
  @MessagePattern(both('register'))
  register(@Payload() r: RegisterTool, @Ctx() ctx: NatsRequestContext) {
    const instance = instanceOf(ctx);
    return this.registerAgent.run(r, instance === MASTER_INSTANCE ? undefined : instance);
  }
}
