import { snowflake } from '@dirigent/testing';
import { LayerReads } from '../application/layer-reads';
import { MemoryHarness } from './harness';

jest.setTimeout(60_000);

/**
 * The archive's answer from Postgres while a guild's word index loads (after a restart,
 * or evicted): its full-text matches and the newest messages of the people the query
 * names, within the search's filters.
 */
describe('archive full-text fallback', () => {
  let h: MemoryHarness;
  beforeAll(async () => {
    h = await MemoryHarness.start();
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('reads the named people’s newest messages, and none when the query names no one', async () => {
    const g = h.guild();
    const [general, random] = [snowflake(), snowflake()];
    const [marguerite, bob] = [snowflake(), snowflake()];
    const said: string[] = [];
    for (let i = 0; i < 6; i++) {
      said.push(
        await g.say(i % 2 ? random : general, marguerite, `harbour note ${i}`, {
          authorName: 'Marguerite',
        }),
      );
    }
    const ferries = await g.say(general, bob, 'the ferries run late', { authorName: 'Bob' });
    await h.waitForCount(g.guildId, marguerite, 6);
    await h.waitForCount(g.guildId, bob, 1);
    const reads = h.app!.get(LayerReads);

    const named = await reads.postgresArchive(g.guildId, 'what did Marguerite say', {}, 4);
    expect(named.named.map((r) => r.id)).toEqual(said.slice(2).reverse());

    const inGeneral = await reads.postgresArchive(
      g.guildId,
      'what did Marguerite say',
      { channelId: general },
      10,
    );
    expect(inGeneral.named.map((r) => r.id)).toEqual([said[4], said[2], said[0]]);

    const nobody = await reads.postgresArchive(g.guildId, 'the ferries run late', {}, 10);
    expect(nobody.named).toEqual([]);
    expect(nobody.fullText.map((r) => r.id)).toEqual([ferries]);
  });
});
