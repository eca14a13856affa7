/**
 * Test support only (not exported from the library): a tiny harness that runs channel
 * commands through decide/evolve, keeps the event log and hands out increasing message ids.
 */
import type { ChannelCommand } from '../src/channel/commands';
import { decideChannel } from '../src/channel/decide';
import type { ChannelEvent } from '../src/channel/events';
import { CHANNEL_EVENT_TYPES } from '../src/channel/events';
import { evolveChannel, initialChannelState } from '../src/channel/evolve';
import type { Effect } from '../src/channel/react';
import { reactToChannelEvent } from '../src/channel/react';
import type { AgentRef, ChannelState, TurnDomainConfig } from '../src/channel/types';
import { DEFAULT_TURN_CONFIG } from '../src/channel/types';
import type { DomainError } from '../src/shared/result';

export const GUILD = '500';
export const CHANNEL = '600';
export const HUMAN = '2001';
export const MODERATOR = '9999';
export const OTHER_BOT = '3001';

export const agent = (agentId: string, discordUserId: string): AgentRef => ({
  agentId,
  discordUserId,
});
export const ALICE = agent('alice', '1001');
export const BOB = agent('bob', '1002');
export const CAROL = agent('carol', '1003');
export const DAVE = agent('dave', '1004');
export const ERIN = agent('erin', '1005');

export const types = (events: readonly ChannelEvent[]): string[] => events.map((e) => e.type);

export interface Outcome {
  readonly events: ChannelEvent[];
  readonly state: ChannelState;
  readonly error: DomainError | null;
  readonly effects: Effect[];
}

/** Speaker timeouts arm a timer at every grant: the tests about them opt in. */
export const WORLD_CONFIG: TurnDomainConfig = { ...DEFAULT_TURN_CONFIG, speakerTimeoutMs: 0 };

export class ChannelWorld {
  state: ChannelState;
  readonly log: ChannelEvent[] = [];
  private nextMessage = 100000;

  constructor(
    readonly config: TurnDomainConfig = WORLD_CONFIG,
    channelId = CHANNEL,
  ) {
    this.state = initialChannelState(channelId);
  }

  /** Applies a command; errors are returned, not thrown. */
  run(command: ChannelCommand): Outcome {
    const decision = decideChannel(command, this.state, this.config);
    if (!decision.ok) {
      return { events: [], state: this.state, error: decision.error, effects: [] };
    }
    const effects: Effect[] = [];
    for (const e of decision.events) {
      this.state = evolveChannel(this.state, e);
      this.log.push(e);
      effects.push(...reactToChannelEvent(e, this.state, this.config));
    }
    return { events: [...decision.events], state: this.state, error: null, effects };
  }

  /** Applies a command that must succeed. */
  ok(command: ChannelCommand): Outcome {
    const out = this.run(command);
    if (out.error) throw new Error(`${command.type} refused: ${out.error.code}`);
    return out;
  }

  newMessageId(): string {
    this.nextMessage += 1;
    return String(this.nextMessage);
  }

  message(
    authorId: string,
    content: string,
    opts: { bot?: boolean; agentId?: string | null; moderator?: boolean } = {},
  ): ChannelCommand {
    return {
      type: 'ObserveMessage',
      data: {
        messageId: this.newMessageId(),
        authorId,
        authorIsBot: opts.bot ?? false,
        content,
        isModerator: opts.moderator ?? false,
        agentIdOfAuthor: opts.agentId ?? null,
      },
    };
  }

  human(content = 'hello'): Outcome {
    return this.ok(this.message(HUMAN, content));
  }

  moderator(content = '➡️'): Outcome {
    return this.ok(this.message(MODERATOR, content, { bot: true, moderator: true }));
  }

  post(a: AgentRef, content: string): Outcome {
    return this.ok(this.message(a.discordUserId, content, { bot: true, agentId: a.agentId }));
  }

  private runSeq = 0;

  complete(agentId: string, text: string, runId = `run-${++this.runSeq}`): Outcome {
    return this.run({ type: 'CompleteTurn', data: { agentId, runId, text } });
  }

  /** The current speaker answers `text` and Discord delivers it in one message. */
  speak(text: string): Outcome {
    const turn = this.state.currentTurn;
    if (!turn) throw new Error('nobody holds the turn');
    const a = agent(turn.agentId, turn.discordUserId);
    const completed = this.complete(a.agentId, text);
    const delivered = this.post(a, text);
    return {
      events: [...completed.events, ...delivered.events],
      state: this.state,
      error: null,
      effects: [...completed.effects, ...delivered.effects],
    };
  }

  /** The current speaker passes. */
  pass(): Outcome {
    const turn = this.state.currentTurn;
    if (!turn) throw new Error('nobody holds the turn');
    return this.complete(turn.agentId, 'NO_REPLY');
  }

  speaker(): string | null {
    return this.state.currentTurn?.agentId ?? null;
  }

  speakers(): string[] {
    return this.state.speakers.map((s) => s.agentId);
  }
}

/** A chat channel with the given agents (shuffle override applied first), dormant. */
export function chatWorld(
  agents: AgentRef[],
  opts: { shuffle?: boolean | null; config?: Partial<TurnDomainConfig>; seed?: number } = {},
): ChannelWorld {
  const world = new ChannelWorld({ ...WORLD_CONFIG, ...opts.config });
  if (opts.shuffle !== undefined) {
    world.ok({ type: 'SetShuffle', data: { shuffle: opts.shuffle } });
  }
  world.ok({
    type: 'CreateChannel',
    data: { guildId: GUILD, mode: 'chat', agents },
    seed: opts.seed,
  });
  return world;
}

/** A discussion channel created by `initiator` with the given agents. */
export function discussionWorld(
  agents: AgentRef[],
  opts: { shuffle?: boolean | null; config?: Partial<TurnDomainConfig>; initiator?: AgentRef } = {},
): ChannelWorld {
  const world = new ChannelWorld({ ...WORLD_CONFIG, ...opts.config });
  if (opts.shuffle !== undefined) {
    world.ok({ type: 'SetShuffle', data: { shuffle: opts.shuffle } });
  }
  const initiator = opts.initiator ?? agents[0];
  world.ok({
    type: 'CreateDiscussion',
    data: {
      guildId: GUILD,
      agents,
      initiatorAgentId: initiator.agentId,
      initiatorDiscordUserId: initiator.discordUserId,
      callbackGuildId: '501',
      callbackChannelId: '601',
      guide: 'Topic: naming. Goal: pick one. Done when agreed.',
      participants: agents.map((a) => a.discordUserId),
    },
  });
  return world;
}

/** Emmett-style given/when/then over the channel decider. */
export function given(...history: (ChannelEvent | ChannelCommand)[]) {
  const world = new ChannelWorld();
  for (const item of history) {
    if (isEvent(item)) {
      world.state = evolveChannel(world.state, item);
      world.log.push(item);
    } else {
      world.ok(item);
    }
  }
  return {
    world,
    when(command: ChannelCommand): Outcome {
      return world.run(command);
    },
  };
}

const EVENT_TYPES = new Set<string>(CHANNEL_EVENT_TYPES);

function isEvent(item: ChannelEvent | ChannelCommand): item is ChannelEvent {
  return EVENT_TYPES.has(item.type);
}
