import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { Subjects, subject } from '@dirigent/contracts';
import { snowflake, uid, waitFor } from '@dirigent/testing';
import { Harness, makeAgents } from './harness';

const id = (prefix: string) => uid(prefix).replace(/[^A-Za-z0-9_-]/g, '_');

describe('turn coordinator: identity registry and projections', () => {
  let h: Harness;
  const dir = mkdtempSync(join(tmpdir(), 'dirigent-identities-'));
  const imported = { discordUserId: snowflake(), agentId: id('file'), agentName: 'From File' };
  const ego = { discordUserId: snowflake(), agentId: id('ego') };

  beforeAll(async () => {
    writeFileSync(join(dir, 'identities.json'), JSON.stringify([imported]));
    writeFileSync(
      join(dir, 'ego.json'),
      JSON.stringify({
        columns: ['discord-id', 'mood'],
        publicColumns: [],
        publicScope: {},
        agentScope: { [ego.agentId]: { 'discord-id': ego.discordUserId }, empty: {} },
      }),
    );
    h = await Harness.start({
      DIRIGENT_IDENTITY_FILE: join(dir, 'identities.json'),
      DIRIGENT_EGO_FILE: join(dir, 'ego.json'),
    });
  });

  afterAll(async () => {
    await h?.close();
  });

  /** Reads the projections through the coordinator's own connection pool. */
  const pg = {
    query: async (sql: string, params: unknown[]) => {
      const rows = await h.app!.get(MikroORM).em.fork().getConnection().execute(sql, params);
      return { rows: rows as any[], rowCount: (rows as any[]).length };
    },
  };

  const list = (discordUserId: string) =>
    h.ok<{ entries: { agentId: string; agentName: string }[] }>(Subjects.admin.identityList, {
      discordUserId,
    });

  it('imports the identity file and padded-cell ego.json at start', async () => {
    expect((await list(imported.discordUserId)).entries).toEqual([imported]);
    expect((await list(ego.discordUserId)).entries).toEqual([
      { discordUserId: ego.discordUserId, agentId: ego.agentId, agentName: ego.agentId },
    ]);
    // A rescan adds nothing new.
    expect(await h.ok(Subjects.admin.identityRescan, {})).toEqual({ imported: 0 });
  });

  it('lets an agent register only itself', async () => {
    const me = { agentId: id('self'), userId: snowflake() };
    const entry = await h.relay.tool('register', me.agentId, {
      discordUserId: me.userId,
      agentName: 'Myself',
    });
    expect(entry).toEqual({ discordUserId: me.userId, agentId: me.agentId, agentName: 'Myself' });
    await expect(
      h.relay.tool('register', id('thief'), { discordUserId: me.userId }),
    ).rejects.toMatchObject({ name: 'RelayError', code: 'FORBIDDEN' });
    const bad = await h.request(subject.tool('register'), {
      callerAgentId: 'has spaces',
      discordUserId: 'x',
    });
    expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
  });

  it('upserts, removes and projects identities into Postgres', async () => {
    const [a] = makeAgents(1, 'adm');
    await h.register([a]);
    await waitFor(async () => {
      const r = await pg.query('select agent_id from tc_identity where discord_user_id = ?', [
        a.userId,
      ]);
      return r.rows[0]?.agent_id === a.agentId;
    }, 60_000);
    const removed = await h.ok(Subjects.admin.identityRemove, { agentId: a.agentId });
    expect(removed).toMatchObject({ removed: { discordUserId: a.userId } });
    expect((await list(a.userId)).entries).toEqual([]);
    const again = await h.request(Subjects.admin.identityRemove, { agentId: a.agentId });
    expect(again).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    await waitFor(async () => {
      const r = await pg.query('select 1 from tc_identity where discord_user_id = ?', [a.userId]);
      return r.rowCount === 0;
    }, 60_000);
  });

  it('projects channels and their turn timeline', async () => {
    const agents = makeAgents(2, 'proj');
    await h.register(agents);
    const { channelId } = await h.create(subject.tool('create-chat-channel'), {
      callerAgentId: agents[0].agentId,
      guildId: h.guildId,
      name: 'projected',
      participants: [agents[1].userId],
    });
    await h.fake.post(h.guildId, channelId, snowflake(), 'hi', false);
    // Projections trail the event store; right after a bench they have thousands to catch up.
    const row = await waitFor(async () => {
      const r = await pg.query(
        'select mode, tm_state, current_speaker, speakers from tc_channel where channel_id = ?',
        [channelId],
      );
      return r.rows[0]?.current_speaker ? r.rows[0] : undefined;
    }, 60_000);
    expect(row).toMatchObject({ mode: 'chat', tm_state: 'normal' });
    expect(row.speakers.map((s: { agentId: string }) => s.agentId).sort()).toEqual(
      agents.map((a) => a.agentId).sort(),
    );
    const timeline = await pg.query(
      'select type, agent_id from tc_turn_event where channel_id = ? order by seq, idx',
      [channelId],
    );
    expect(timeline.rows.map((r) => r.type)).toEqual(
      expect.arrayContaining(['ChannelCreated', 'WentDormant', 'Woke', 'TurnGranted']),
    );
  });
});
