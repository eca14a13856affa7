import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import {
  Subjects,
  type DiscordSelfResult,
  type MessageCreated,
  type TypingStarted,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { isConversational, isRotating } from '@dirigent/turn-domain';
import type { TurnCoordinatorConfig } from '../config';
import { Channels } from './channels';
import { Identities } from './identities';
import { lastOfCycle, Members } from './members';

/** How often an unanswered `query.self` may be asked again. */
const SELF_RETRY_MS = 5000;

/**
 * The moderator bot's own user id: from DIRIGENT_MODERATOR_USER_ID, else asked of the ingest
 * at start and again (lazily, at most every few seconds) until it answers.
 */
@Injectable()
export class ModeratorSelf implements OnApplicationBootstrap {
  private readonly log = new Logger('moderator-self');
  private learned: string | undefined;
  private lastTry = 0;
  private inFlight: Promise<string | undefined> | null = null;

  constructor(
    private readonly messaging: Messaging,
    @Inject(SERVICE_CONFIG) private readonly config: TurnCoordinatorConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.DIRIGENT_MODERATOR_USER_ID === undefined) void this.userId(true);
  }

  /** The id if known; asks the ingest when it is not and a retry is due (`wait`: await it). */
  async userId(wait = false): Promise<string | undefined> {
    const known = this.config.DIRIGENT_MODERATOR_USER_ID ?? this.learned;
    if (known !== undefined) return known;
    if (this.inFlight === null && Date.now() - this.lastTry >= SELF_RETRY_MS) {
      this.lastTry = Date.now();
      this.inFlight = this.ask().finally(() => (this.inFlight = null));
    }
    return wait && this.inFlight ? this.inFlight : undefined;
  }

  private async ask(): Promise<string | undefined> {
    const timeout = Math.min(this.config.DIRIGENT_DISCORD_RPC_TIMEOUT_MS, 2000);
    const reply = await this.messaging
      .request<DiscordSelfResult>(Subjects.discord.querySelf, {}, timeout)
      .catch((e: Error) => ({ ok: false as const, error: { message: e.message } }));
    if (reply.ok && typeof reply.data?.userId === 'string' && reply.data.userId !== '') {
      this.learned = reply.data.userId;
      this.log.log({ userId: this.learned }, 'learned the moderator bot user from the ingest');
      return this.learned;
    }
    this.log.debug({ err: reply.ok ? 'no userId' : reply.error.message }, 'query.self failed');
    return undefined;
  }
}

/** A message seen in a channel: delivery confirmation, wake, interruption, loop breaker. */
@Injectable()
export class ObserveMessage {
  constructor(
    private readonly channels: Channels,
    private readonly identities: Identities,
    private readonly members: Members,
    private readonly self: ModeratorSelf,
  ) {}

  async run(m: MessageCreated): Promise<void> {
    // A bot's message may be our own notice: learn who we are before deciding on it.
    const moderator = await this.self.userId(m.authorIsBot);
    const isModerator = moderator !== undefined && m.authorId === moderator;
    const isWebhook = m.webhookId !== undefined;
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
        await this.members.refresh(m.channelId, m.guildId);
      }
    }
    const author =
      isModerator || isWebhook ? undefined : await this.identities.byDiscordUserId(m.authorId);
    await this.channels.execute(m.channelId, {
      type: 'ObserveMessage',
      data: {
        messageId: m.messageId,
        authorId: m.authorId,
        authorIsBot: m.authorIsBot,
        content: m.content,
        isModerator,
        agentIdOfAuthor: author?.agentId ?? null,
        ...(isWebhook ? { isWebhook } : {}),
        ...(m.mentions?.length ? { mentions: m.mentions } : {}),
      },
    });
  }

  /** `typing.started`: a person typing holds the next grant (agents and the moderator never do). */
  async typing(t: TypingStarted): Promise<void> {
    if (t.userId === (await this.self.userId())) return;
    const state = await this.channels.state(t.channelId);
    if (!isConversational(state.mode) || !isRotating(state.tmState)) return;
    if (await this.identities.byDiscordUserId(t.userId)) return;
    await this.channels.execute(t.channelId, {
      type: 'TypingStarted',
      data: { userId: t.userId },
    });
  }
}
