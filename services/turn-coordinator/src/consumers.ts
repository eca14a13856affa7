import { Inject, Injectable, Logger } from '@nestjs/common';
import { IsObject, Matches } from 'class-validator';
import {
  DomainError,
  Durables,
  ErrorCodes,
  MemberChanged,
  MessageCreated,
  Streams,
  Subjects,
  TurnComplete,
  subject,
  type DiscordEventKind,
  type Envelope,
} from '@dirigent/contracts';
import { Messaging, PermanentError, type RunningConsumer } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import {
  isConversational,
  isRotating,
  type ChannelCommand,
  type ChannelState,
} from '@dirigent/turn-domain';
import { Channels, RefusedError } from './channels';
import type { TurnCoordinatorConfig } from './config';
import { DiscordPort } from './discord';
import { Identities } from './identities';
import { KeyedQueue } from './keyed-queue';
import { SERVICE_NAME, TIMER_COMMAND } from './reactor';

/** What a delivery-timeout (or any channel) timer publishes when it fires. */
export class ChannelTimerFired {
  @Matches(/^\d{1,20}$/) channelId: string;
  @IsObject() command: ChannelCommand;
}

const DISCORD_EVT_TOKENS = Subjects.discord.evtPrefix.split('.').length;

/** No later speaker in this cycle is still a member: the next advance is a cycle boundary. */
function lastOfCycle(s: ChannelState): boolean {
  const members = new Set(s.members.map((m) => m.agentId));
  return !s.speakers.slice(s.position + 1).some((sp) => members.has(sp.agentId));
}

/**
 * The coordinator's JetStream inputs: Discord events, turn completions and fired timers.
 * Each maps its payload to channel commands; a channel's inputs run in order, channels in
 * parallel. Before a command that may reach a cycle boundary (or wake an idle channel) the
 * member list is refreshed from Discord, as the design's speaker-list rules require.
 */
@Injectable()
export class Consumers {
  private readonly log = new Logger('consumers');
  private readonly queue = new KeyedQueue();
  private readonly running: RunningConsumer[] = [];

  constructor(
    private readonly messaging: Messaging,
    private readonly channels: Channels,
    private readonly identities: Identities,
    private readonly discord: DiscordPort,
    @Inject(SERVICE_CONFIG) private readonly config: TurnCoordinatorConfig,
  ) {}

  async start(): Promise<void> {
    const concurrency = this.config.DIRIGENT_COORDINATOR_CONCURRENCY;
    this.running.push(
      await this.messaging.consume<Record<string, unknown>>({
        stream: Streams.discordEvents,
        durable: Durables.coordinatorDiscordEvents,
        filterSubject: Subjects.discord.evtAll,
        maxDeliver: 10,
        ackWaitMs: 10_000,
        maxAckPending: concurrency * 4,
        concurrency,
        backoffMs: [100, 500, 2000, 5000],
        handler: (data, env, msg) => this.onDiscordEvent(msg.subject, data, env),
      }),
    );
    this.running.push(
      await this.messaging.consume<TurnComplete>({
        stream: Streams.turnComplete,
        durable: Durables.coordinatorTurnComplete,
        filterSubject: Subjects.turn.completeAll,
        payload: TurnComplete,
        maxDeliver: 10,
        ackWaitMs: 10_000,
        maxAckPending: concurrency * 4,
        concurrency,
        backoffMs: [100, 500, 2000, 5000],
        handler: (data) => this.queue.run(data.channelId, () => this.onTurnComplete(data)),
      }),
    );
    this.running.push(
      await this.messaging.consume<ChannelTimerFired>({
        stream: Streams.timerFired,
        durable: Durables.coordinatorTimers,
        filterSubject: subject.timerFired(SERVICE_NAME, TIMER_COMMAND),
        payload: ChannelTimerFired,
        maxDeliver: 10,
        ackWaitMs: 10_000,
        maxAckPending: concurrency * 4,
        concurrency,
        handler: (data) => this.queue.run(data.channelId, () => this.onTimer(data)),
      }),
    );
  }

  async stop(): Promise<void> {
    await Promise.all(this.running.splice(0).map((c) => c.stop()));
  }

  /** Refreshes the members when the channel is idle or about to reach a cycle boundary. */
  private async refreshIfBoundary(channelId: string, guildId: string, state: ChannelState) {
    if (!isConversational(state.mode) || state.tmState === 'archived') return;
    const turn = state.currentTurn;
    const idle = turn === null;
    if (!idle && !lastOfCycle(state)) return;
    await this.refreshMembers(channelId, guildId);
  }

  async refreshMembers(channelId: string, guildId: string): Promise<void> {
    let agents;
    try {
      agents = await this.discord.agentsIn(guildId, channelId);
    } catch (e) {
      // The ingest being down must not stall turns: carry on with the members we know.
      this.log.warn({ channelId, err: (e as Error).message }, 'members refresh failed');
      return;
    }
    await this.channels.execute(channelId, { type: 'RefreshMembers', data: { agents } });
  }

  private onDiscordEvent(
    subj: string,
    data: Record<string, unknown>,
    env: Envelope<Record<string, unknown>>,
  ): Promise<void> {
    const tokens = subj.split('.');
    const channelId = tokens[DISCORD_EVT_TOKENS + 1];
    const kind = tokens.slice(DISCORD_EVT_TOKENS + 2).join('.') as DiscordEventKind;
    if (!channelId) throw new PermanentError(`unexpected subject ${subj}`);
    switch (kind) {
      case 'message.created': {
        const m = MessageCreated.create(data);
        return this.queue.run(m.channelId, () => this.onMessage(m));
      }
      case 'member.joined':
      case 'member.left': {
        const m = MemberChanged.create(data);
        return this.queue.run(m.channelId, async () => {
          const state = await this.channels.state(m.channelId);
          if (!isConversational(state.mode) || state.tmState === 'archived') return;
          await this.refreshMembers(m.channelId, m.guildId);
        });
      }
      case 'message.deleted':
      case 'typing.started':
        return Promise.resolve();
      default: {
        this.log.debug({ subject: subj, type: env.type }, 'ignored Discord event');
        return Promise.resolve();
      }
    }
  }

  private async onMessage(m: MessageCreated): Promise<void> {
    const moderator = this.config.DIRIGENT_MODERATOR_USER_ID;
    const isModerator = moderator !== undefined && m.authorId === moderator;
    const state = await this.channels.state(m.channelId);
    if (!isConversational(state.mode)) return;
    if (!isModerator && isRotating(state.tmState) && !state.multiMessage) {
      const turn = state.currentTurn;
      const speakerReply = turn !== null && turn.discordUserId === m.authorId;
      // A wake (idle), an interrupted delivery (fresh cycle) or a confirmed last turn
      // rebuilds the speaker list: fetch the members first.
      if (
        turn === null ||
        (turn.phase === 'awaiting-delivery' && (!speakerReply || lastOfCycle(state)))
      ) {
        await this.refreshMembers(m.channelId, m.guildId);
      }
    }
    const author = isModerator ? undefined : await this.identities.byDiscordUserId(m.authorId);
    await this.channels.execute(m.channelId, {
      type: 'ObserveMessage',
      data: {
        messageId: m.messageId,
        authorId: m.authorId,
        authorIsBot: m.authorIsBot,
        content: m.content,
        isModerator,
        agentIdOfAuthor: author?.agentId ?? null,
      },
    });
  }

  private async onTurnComplete(t: TurnComplete): Promise<void> {
    const state = await this.channels.state(t.channelId);
    if (state.currentTurn?.agentId === t.agentId && state.currentTurn.phase === 'running') {
      await this.refreshIfBoundary(t.channelId, t.guildId, state);
    }
    try {
      await this.channels.execute(t.channelId, {
        type: 'CompleteTurn',
        data: { agentId: t.agentId, runId: t.runId, text: t.text, turnId: t.turnId ?? null },
      });
    } catch (e) {
      if (e instanceof RefusedError && e.refusal.code === 'NOT_CURRENT_SPEAKER') {
        this.log.log(
          { channelId: t.channelId, agentId: t.agentId, runId: t.runId },
          'turn-complete from an agent not holding the turn; ignored',
        );
        return;
      }
      throw e;
    }
  }

  private async onTimer(t: ChannelTimerFired): Promise<void> {
    const command = t.command;
    if (command?.type !== 'DeliveryTimeout') {
      throw new DomainError(ErrorCodes.BAD_REQUEST, `unexpected timer command ${command?.type}`);
    }
    const state = await this.channels.state(t.channelId);
    const turn = state.currentTurn;
    if (turn?.turnId === command.data.turnId && turn.phase === 'awaiting-delivery') {
      if (state.guildId) await this.refreshIfBoundary(t.channelId, state.guildId, state);
    }
    await this.channels.execute(t.channelId, command);
  }
}
