import { shardOptions } from './discord-connection';

describe('shardOptions', () => {
  it('runs every shard Discord recommends by default', () => {
    expect(shardOptions({ DISCORD_SHARD_COUNT: 'auto' })).toEqual({ shards: 'auto' });
  });

  it('runs every shard of a fixed count, or this replica share of it', () => {
    expect(shardOptions({ DISCORD_SHARD_COUNT: '6' })).toEqual({ shardCount: 6 });
    expect(shardOptions({ DISCORD_SHARD_COUNT: '6', DISCORD_SHARD_IDS: '4,1,1' })).toEqual({
      shards: [1, 4],
      shardCount: 6,
    });
  });

  it('refuses shard ids without a count, or outside it', () => {
    expect(() => shardOptions({ DISCORD_SHARD_COUNT: 'auto', DISCORD_SHARD_IDS: '0' })).toThrow(
      /numeric DISCORD_SHARD_COUNT/,
    );
    expect(() => shardOptions({ DISCORD_SHARD_COUNT: '2', DISCORD_SHARD_IDS: '0,2' })).toThrow(
      /shard 2/,
    );
  });
});
