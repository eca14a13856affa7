import { Subjects, type RouterDecision } from '@dirigent/contracts';
import { snowflake, testDatabaseUrl, waitFor } from '@dirigent/testing';
import knex from 'knex';
import { startRouterStack, type RouterStack } from './harness';

const YAML = `
agents:
  - { id: dit, name: Dit, discordUserId: '700000000000000042' }
  - { id: ada, name: Ada, discordUserId: '700000000000000043' }
speculative: { enabled: false }
followups: { enabled: false }
`;

/**
 * A decision's probes under its deadline (`DIRIGENT_ROUTER_INPUTS_DEADLINE_MS`): memory
 * answered by this test, at once or held back; what missed the deadline is named in the
 * inputs' `late`, the decision goes with what was known, and its replay is exact.
 */
describe('router: the inputs deadline', () => {
  let s: RouterStack;
  const guild = snowflake();
  /** Routing probes asked, by query; `hold` keeps answers back until released. */
  const searches = new Map<string, number>();
  let hold: Promise<void> | undefined;

  beforeAll(async () => {
    s = await startRouterStack(YAML, {
      DIRIGENT_ROUTER_INPUTS_DEADLINE_MS: '50',
      DIRIGENT_ROUTER_MEMORY_PROBE_MS: '5000',
    });
    const nc = s.messaging.client.nc;
    nc.subscribe(Subjects.memory.search, {
      callback: (_e, m) => {
        const { query, k } = m.json<{ query: string; k: number }>();
        // The routing probe asks for 3 hits (a lens or skill search for more).
        if (k === 3) searches.set(query, (searches.get(query) ?? 0) + 1);
        const hits = [
          { layer: 'archive', id: 'h', text: 'pizza', at: new Date().toISOString(), score: 1 },
        ];
        void (hold ?? Promise.resolve()).then(() =>
          m.respond(JSON.stringify({ ok: true, data: { hits } })),
        );
      },
    });
    nc.subscribe(Subjects.memory.context, {
      callback: (_e, m) =>
        void m.respond(
          JSON.stringify({
            ok: true,
            data: { strategy: 'none', sections: [], text: '', tokens: 0 },
          }),
        ),
    });
    await nc.flush();
    s.upstream.behave = () => ({ kind: 'ok', text: 'sure thing' });
  });
  afterAll(async () => {
    await s?.close();
  });

  const replay = async (d: RouterDecision) => {
    const r = await waitFor(async () => {
      const a = await s.request(Subjects.router.replay, { decisionId: d.decisionId });
      return a.ok ? a : undefined;
    });
    expect(r.data).toMatchObject({ chosen: d.chosen, identical: true });
  };

  it('asks memory once for every agent deciding on a message, answered in time', async () => {
    const channel = snowflake();
    const text = 'does anyone remember the pizza place we liked?';
    await s.discord.human(guild, channel, text);
    const both = await waitFor(() => {
      const ds = s.decisions(channel);
      return ds.length >= 2 ? ds : undefined;
    });
    expect(new Set(both.map((d) => d.agentId))).toEqual(new Set(['dit', 'ada']));
    for (const d of both) {
      expect(d.inputs!.memory).toEqual({ hits: 1 });
      // (The budget or the members may be late on a busy machine; memory was not.)
      expect(d.inputs!.late ?? []).not.toContain('memory');
      await replay(d);
    }
    expect(searches.get(text)).toBe(1);
  });

  it('goes with the learned adjustments read last when their read is late', async () => {
    const db = knex({ client: 'pg', connection: testDatabaseUrl() });
    const trx = await db.transaction();
    try {
      // The router's first read of this guild's adjustments (kept afterwards until a signal
      // writes them) waits for this lock.
      await trx.raw('lock table learning_adjustments in access exclusive mode');
      const channel = snowflake();
      await s.discord.human(snowflake(), channel, 'ada, what do you think of jazz?');
      const d: RouterDecision = await waitFor(() =>
        s.decisions(channel).find((x) => x.agentId === 'ada'),
      );
      expect(d.inputs!.late).toContain('learned');
      expect(d.inputs!.contextClass).toBeDefined();
      await trx.rollback();
      await replay(d);
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
      await db.destroy();
    }
  });

  it('goes without a hit count memory gives late, names it late, and replays exactly', async () => {
    let release!: () => void;
    hold = new Promise((r) => (release = r));
    try {
      const channel = snowflake();
      const text = 'dit, do you remember the hike?';
      await s.discord.human(guild, channel, text);
      const d: RouterDecision = await waitFor(() =>
        s.decisions(channel).find((x) => x.agentId === 'dit'),
      );
      expect(d.inputs!.memory).toBeUndefined();
      expect(d.inputs!.late).toContain('memory');
      expect(d.inputs!.late).toEqual([...d.inputs!.late!].sort());
      expect(d.inputs!.message).toMatchObject({ callback: true, question: true });
      await replay(d);
      // Postgres keeps `late` with the other inputs.
      const listed = await waitFor(async () => {
        const r = await s.request(Subjects.router.decisionsList, {
          guildId: guild,
          channelId: channel,
        });
        return r.data.decisions.find((x: RouterDecision) => x.decisionId === d.decisionId);
      });
      expect(listed.inputs).toEqual(d.inputs);
    } finally {
      release();
      hold = undefined;
    }
  });
});
