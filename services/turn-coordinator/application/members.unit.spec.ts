import { Logger } from '@nestjs/common';
import { KeyedQueue } from '@dirigent/messaging';
import type { AgentRef } from '@dirigent/turn-domain';
import type { ChannelInbox } from './channel-inbox';
import type { Channels } from './channels';
import { Members, RetryBackoff } from './members';
import type { DiscordPort } from './ports';

const CHANNEL = '100';
const GUILD = '200';
const BOB: AgentRef = { agentId: 'bob', discordUserId: '300' };

/** Members over a Discord whose members query fails until `answering` is set. */
function world() {
  const w = {
    queries: 0,
    answering: false,
    applied: [] as AgentRef[][],
    members: undefined as unknown as Members,
  };
  const discord = {
    agentsIn: () => {
      w.queries++;
      return w.answering ? Promise.resolve([BOB]) : Promise.reject(new Error('timeout'));
    },
  } as unknown as DiscordPort;
  const channels = {
    execute: (_id: string, c: { data: { agents: AgentRef[] } }) => {
      w.applied.push(c.data.agents);
      return Promise.resolve({ events: [], state: {} });
    },
  } as unknown as Channels;
  w.members = new Members(channels, discord, new KeyedQueue() as ChannelInbox);
  return w;
}

// The failed refreshes log warnings on purpose.
beforeAll(() => Logger.overrideLogger(false));

describe('RetryBackoff', () => {
  it('doubles the wait from 1 s up to 30 s and forgets a key that succeeded', () => {
    const b = new RetryBackoff();
    const waits = Array.from({ length: 8 }, () => b.failed('k', 0));
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(b.dueIn('k', 10_000)).toBe(20_000);
    expect(b.dueIn('other', 10_000)).toBe(0);
    b.succeeded('k');
    expect(b.dueIn('k', 10_000)).toBe(0);
  });
});

describe('Members: a channel whose members query goes unanswered', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('is asked again after a backoff, not on every input, and carries on meanwhile', async () => {
    const w = world();
    await w.members.refresh(CHANNEL, GUILD);
    expect(w.queries).toBe(1);
    // Inputs within the backoff go on with the members the channel knows: no query.
    for (let i = 0; i < 5; i++) await w.members.refresh(CHANNEL, GUILD);
    expect(w.queries).toBe(1);
    // The one retry of the skipped refreshes, 1 s after the failure; then 2 s, 4 s, ...
    await jest.advanceTimersByTimeAsync(999);
    expect(w.queries).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(w.queries).toBe(2);
    await w.members.refresh(CHANNEL, GUILD);
    await jest.advanceTimersByTimeAsync(1999);
    expect(w.queries).toBe(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(w.queries).toBe(3);
    // Without inputs asking for members, a failing channel is not asked again.
    await jest.advanceTimersByTimeAsync(120_000);
    expect(w.queries).toBe(3);
    expect(w.applied).toEqual([]);
  });

  it('applies the members once the query is answered, and asks at once from then on', async () => {
    const w = world();
    await w.members.refresh(CHANNEL, GUILD);
    await w.members.refresh(CHANNEL, GUILD); // skipped: a retry is due in 1 s
    w.answering = true;
    await jest.advanceTimersByTimeAsync(1000);
    expect(w.applied).toEqual([[BOB]]);
    await w.members.refresh(CHANNEL, GUILD);
    expect(w.queries).toBe(3);
    expect(w.applied).toEqual([[BOB], [BOB]]);
  });

  it('backs off per channel: another channel is asked at once', async () => {
    const w = world();
    await w.members.refresh(CHANNEL, GUILD);
    await w.members.refresh('101', GUILD);
    expect(w.queries).toBe(2);
    w.members.onModuleDestroy();
  });
});
