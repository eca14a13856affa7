import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import {
  Durables,
  ProposalsListRequest,
  StewardDecideRequest,
  Streams,
  Subjects,
} from '@dirigent/contracts';
import type { Commit } from '@dirigent/event-store';
import type { JetStreamContext, DurableEventOptions } from '@dirigent/messaging';
import type { ProposalEvent } from '@dirigent/router-domain';
import { DecideProposal } from '../application/decide-proposal';
import { ProposalEffects } from '../application/proposal-effects';
import { ProposalService, proposalIdOf } from '../application/proposals';
import { ProposalReadModel } from '../application/ports';
import { KeyedQueue } from '@dirigent/messaging';
import { StewardLifecycle } from '../steward.lifecycle';

/**
 * The steward's inputs: proposal commits (their effects, each proposal's in order), the
 * proposal list and the admin decision. Reactions, the bot's own posts and `guild.joined`
 * come through the router's Discord consumer (`InputsHandler`).
 */
@Controller()
export class StewardHandler {
  private readonly lanes = new KeyedQueue();

  constructor(
    private readonly effects: ProposalEffects,
    private readonly decisions: DecideProposal,
    private readonly readModel: ProposalReadModel,
    private readonly proposals: ProposalService,
    private readonly lifecycle: StewardLifecycle,
  ) {}

  @EventPattern(`${Subjects.es.prefix}.proposal.>`, {
    stream: Streams.eventStore,
    durable: Durables.routerStewardEffects,
    maxDeliver: 20,
    ackWaitMs: 10_000,
    workingEveryMs: 3_000,
    backoffMs: [500, 2_000, 5_000],
    concurrency: 8,
  } satisfies DurableEventOptions)
  commit(@Payload() c: Commit<ProposalEvent>, @Ctx() ctx: JetStreamContext) {
    const proposalId = proposalIdOf(ctx.subject);
    return this.lanes.run(proposalId, () =>
      this.effects.onCommit(proposalId, ctx.seq, ctx.envelope.id, c.events ?? []),
    );
  }

  @MessagePattern(Subjects.steward.proposalsList)
  async list(@Payload() r: ProposalsListRequest) {
    // Read your writes: what this process proposed or decided is in the list it answers.
    await this.lifecycle.caughtUp(this.proposals.lastWritten);
    return { proposals: await this.readModel.list(r.guildId, r.status) };
  }

  @MessagePattern(Subjects.admin.stewardDecide)
  decide(@Payload() r: StewardDecideRequest) {
    return this.decisions.decide(r);
  }
}
