import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Aggregates, DomainError, ErrorCodes, subject } from '@dirigent/contracts';
import { CommandHandler, EventStore } from '@dirigent/event-store';
import {
  decideModChannel,
  evolveModChannel,
  holdsClaim,
  initialModChannelState,
  type ModChannelCommand,
  type ModChannelEvent,
  type ModChannelState,
} from '@dirigent/router-domain';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import type { RouterConfig } from '../../config';
import { StewardDiscord } from './ports';

/** How long a claim to create a guild's mod channel holds before another process may take over. */
const CLAIM_LEASE_MS = 60_000;
const WAIT_STEP_MS = 250;

/**
 * Each guild's one mod channel (`dirigent.es.mod-channel.<guildId>`). Created once whatever
 * restarts or replicas do: a channel of that name already in the guild is adopted; otherwise
 * one process wins the claim (an append at the expected version) and asks the ingest for
 * the channel, the others wait for its record. A claim left by a process that died expires.
 */
@Injectable()
export class ModChannels {
  private readonly log = new Logger('router:steward');
  private readonly handler: CommandHandler<ModChannelCommand, ModChannelEvent, ModChannelState>;
  private readonly inFlight = new Map<string, Promise<string>>();
  /** Channel ids known to be a guild's mod channel (for reactions). */
  private readonly known = new Map<string, string>();

  constructor(
    store: EventStore,
    private readonly discord: StewardDiscord,
    private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
  ) {
    this.handler = new CommandHandler(store, {
      initialState: initialModChannelState,
      decide: decideModChannel,
      evolve: evolveModChannel,
    });
  }

  /** The guild's mod channel id, created if it has none (one call at a time per guild here). */
  ensure(guildId: string): Promise<string> {
    const underway = this.inFlight.get(guildId);
    if (underway) return underway;
    const run = this.ensureOnce(guildId).finally(() => this.inFlight.delete(guildId));
    this.inFlight.set(guildId, run);
    return run;
  }

  /** Whether `channelId` is the guild's mod channel, from what is recorded (no Discord call). */
  async isModChannel(guildId: string, channelId: string): Promise<boolean> {
    const known = this.known.get(guildId);
    if (known) return known === channelId;
    const recorded = (await this.state(guildId)).channelId;
    if (recorded) this.known.set(guildId, recorded);
    return recorded === channelId;
  }

  private subject(guildId: string) {
    return subject.aggregate(Aggregates.modChannel, guildId);
  }

  private async state(guildId: string): Promise<ModChannelState> {
    this.handler.invalidate(this.subject(guildId));
    return (await this.handler.state(this.subject(guildId))).state;
  }

  private async run(guildId: string, command: ModChannelCommand) {
    this.handler.invalidate(this.subject(guildId));
    return (await this.handler.handle(this.subject(guildId), command)).state;
  }

  private async ensureOnce(guildId: string): Promise<string> {
    const name = this.config.DIRIGENT_MOD_CHANNEL_NAME;
    const state = await this.state(guildId);
    const channels = await this.discord.channels(guildId);
    if (!channels) throw new DomainError(ErrorCodes.NOT_FOUND, `guild ${guildId} is not known`);
    if (state.channelId && channels.some((c) => c.channelId === state.channelId)) {
      return this.remember(guildId, state.channelId);
    }
    const at = () => new Date(this.clock.now()).toISOString();
    const existing = channels.find((c) => c.name === name && c.private);
    if (existing) {
      await this.run(guildId, {
        type: 'RecordModChannel',
        channelId: existing.channelId,
        at: at(),
      });
      return this.remember(guildId, existing.channelId);
    }
    const claimId = randomUUID();
    const claimed = await this.run(guildId, {
      type: 'ClaimModChannel',
      claimId,
      at: at(),
      leaseMs: CLAIM_LEASE_MS,
      gone: state.channelId,
    });
    if (!holdsClaim(claimed, claimId)) return this.awaitOther(guildId, state.channelId);
    const channelId = await this.discord.createModChannel(guildId, name);
    await this.run(guildId, { type: 'RecordModChannel', channelId, at: at() });
    this.log.log({ guildId, channelId }, 'mod channel created');
    return this.remember(guildId, channelId);
  }

  /** Another process holds the claim: its record comes, or the claim lapses (an error: retried). */
  private async awaitOther(guildId: string, gone: string | undefined): Promise<string> {
    const deadline = this.clock.now() + CLAIM_LEASE_MS;
    while (this.clock.now() < deadline) {
      const s = await this.state(guildId);
      if (s.channelId && s.channelId !== gone) return this.remember(guildId, s.channelId);
      await new Promise((r) => setTimeout(r, WAIT_STEP_MS));
    }
    throw new DomainError(ErrorCodes.UNAVAILABLE, `mod channel of ${guildId} not created in time`);
  }

  private remember(guildId: string, channelId: string): string {
    this.known.set(guildId, channelId);
    return channelId;
  }
}
