import {
  archiveCandidates,
  DEFAULT_UPKEEP,
  roleCandidates,
  topicChannels,
  type UpkeepEpoch,
} from './upkeep-proposals';

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-01T10:00:00.000Z');
const epoch = (
  channelId: string,
  dayN: number,
  participants: string[],
  topics: string[],
  messageCount = 20,
): UpkeepEpoch => ({
  channelId,
  startAt: new Date(T0 + dayN * DAY).toISOString(),
  endAt: new Date(T0 + dayN * DAY + 3_600_000).toISOString(),
  messageCount,
  participants,
  topics,
});
const general = { channelId: '1', name: 'general' };

describe('upkeep proposals', () => {
  it('a topic on 3 days by 4 members outside a channel of its own', () => {
    const epochs = [
      epoch('1', 0, ['a', 'b'], ['Seed swap']),
      epoch('1', 1, ['c'], ['seed swap', 'tomatoes']),
      epoch('1', 2, ['d'], ['seed-swap']),
    ];
    expect(topicChannels(epochs, [general], DEFAULT_UPKEEP)).toEqual([
      { topic: 'Seed swap', name: 'seed-swap', days: 3, members: 4 },
    ]);
    // Below either threshold, or with a channel of its own: nothing.
    expect(topicChannels(epochs.slice(0, 2), [general], DEFAULT_UPKEEP)).toEqual([]);
    expect(topicChannels(epochs, [general], { ...DEFAULT_UPKEEP, topicMembers: 5 })).toEqual([]);
    expect(
      topicChannels(epochs, [general, { channelId: '2', name: 'seed-swap' }], DEFAULT_UPKEEP),
    ).toEqual([]);
  });

  it('a channel idle 30 days that held 200 messages', () => {
    const old = { channelId: '9', name: 'old-events' };
    const epochs = [epoch('9', 0, ['a'], [], 150), epoch('9', 2, ['b'], [], 60)];
    const now = T0 + 40 * DAY;
    expect(archiveCandidates(epochs, [general, old], now, DEFAULT_UPKEEP)).toEqual([
      { channelId: '9', name: 'old-events', messages: 210, idleDays: 37 },
    ]);
    expect(archiveCandidates(epochs, [old], T0 + 20 * DAY, DEFAULT_UPKEEP)).toEqual([]);
    expect(archiveCandidates(epochs.slice(0, 1), [old], now, DEFAULT_UPKEEP)).toEqual([]);
    expect(archiveCandidates(epochs, [old], now, DEFAULT_UPKEEP, () => true)).toEqual([]);
  });

  it('a role for 5 members who kept meeting around a topic for 3 weeks', () => {
    const five = ['a', 'b', 'c', 'd', 'e'];
    const epochs = [epoch('1', 0, five, ['gardening']), epoch('1', 22, five, ['gardening'])];
    expect(roleCandidates(epochs, DEFAULT_UPKEEP)).toEqual([
      { topic: 'gardening', name: 'gardening', memberIds: five, days: 22 },
    ]);
    const short = [epoch('1', 0, five, ['gardening']), epoch('1', 10, five, ['gardening'])];
    expect(roleCandidates(short, DEFAULT_UPKEEP)).toEqual([]);
    const four = [epoch('1', 0, five, ['gardening']), epoch('1', 22, five.slice(1), ['gardening'])];
    expect(roleCandidates(four, DEFAULT_UPKEEP)).toEqual([]);
  });
});
