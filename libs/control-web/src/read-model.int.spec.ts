import { Logger } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { EventStore } from '@dirigent/event-store';
import { ormConfig, turnCoordinatorEntities } from '@dirigent/persistence';
import { snowflake, testDatabaseUrl } from '@dirigent/testing';
import { ChannelReadModel } from './read-model';

describe('ChannelReadModel against the real Postgres', () => {
  let orm: MikroORM;

  beforeAll(async () => {
    orm = await MikroORM.init(ormConfig(testDatabaseUrl(), turnCoordinatorEntities));
  });
  afterAll(async () => {
    await orm.close(true);
  });

  it('answers after the wait when the projection stays behind, and says so in the log', async () => {
    // The store says the channel has a commit at 42; no projection runs here to fold it.
    const store = { version: async () => 42 } as unknown as EventStore;
    const reads = new ChannelReadModel(orm.em, store, 100);
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const channelId = snowflake();
      const read = await reads.channel(channelId);
      expect(read).toMatchObject({
        version: 0,
        current: false,
        state: { channelId, mode: 'none' },
      });
      expect(errors).toHaveBeenCalledWith(
        expect.objectContaining({
          msg: 'channel read model behind the event store after the wait',
          channelId,
          latest: 42,
          row: 0,
        }),
      );
    } finally {
      errors.mockRestore();
    }
  });
});
