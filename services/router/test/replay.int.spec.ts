import { Subjects, type RouterDecision } from '@dirigent/contracts';
import {
  CANONICAL_DISPOSITIONS,
  dispositionSetId,
  routeFromInputs,
  seededRandom,
  type DecisionInputs,
} from '@dirigent/router-domain';
import { snowflake, waitFor } from '@dirigent/testing';
import { DecisionLog, DispositionStore } from '../application/stores';
import { choiceJson } from '../application/replay-decision';
import { startRouterStack, type RouterStack } from './harness';

const YAML = `
agents:
  - { id: dit, name: Dit, discordUserId: '700000000000000042' }
speculative: { enabled: false }
followups: { enabled: false }
`;

/**
 * Route inputs on decisions and exact replay, through NATS with the real gateway: memory
 * and the ingest's members query answered by this test (it records what the router asks).
 */
describe('router: inputs on decisions and dirigent.router.replay', () => {
  let s: RouterStack;
  const guild = snowflake();
  const member = snowflake();
  const contexts: any[] = [];
  let memoryHits = 2;

  beforeAll(async () => {
    s = await startRouterStack(YAML, { DIRIGENT_ROUTER_MEMORY_PROBE_MS: '2000' });
    const nc = s.messaging.client.nc;
    nc.subscribe(Subjects.memory.context, {
      callback: (_e, m) => {
        const req = m.json<any>();
        contexts.push(req);
        m.respond(
          JSON.stringify({
            ok: true,
            data: { strategy: req.strategy, sections: [], text: '', tokens: 0 },
          }),
        );
      },
    });
    nc.subscribe(Subjects.memory.search, {
      callback: (_e, m) => {
        const hits = Array.from({ length: memoryHits }, (_, i) => ({
          layer: 'archive',
          id: `h${i}`,
          text: 'pizza night',
          at: new Date().toISOString(),
          score: 1,
        }));
        m.respond(JSON.stringify({ ok: true, data: { hits } }));
      },
    });
    nc.subscribe(Subjects.discord.queryChannelMembers, {
      callback: (_e, m) =>
        void m.respond(
          JSON.stringify({
            ok: true,
            data: {
              members: [
                { userId: '700000000000000042', isBot: true },
                { userId: member, isBot: false },
              ],
            },
          }),
        ),
    });
    await nc.flush();
    s.upstream.behave = () => ({ kind: 'ok', text: 'sure thing' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a decision carries its inputs, passes present users to memory and replays identically', async () => {
    const channel = snowflake();
    const m = await s.discord.human(guild, channel, 'dit, do you remember the pizza night?');
    const d: RouterDecision = await waitFor(() => s.decisions(channel)[0]);
    expect(d.inputs).toMatchObject({
      trigger: 'reactive',
      mentioned: true,
      agent: { id: 'dit', name: 'Dit' },
      message: { callback: true, question: true, authorIsBot: false },
      room: { humansActive: 1, botRun: 0 },
      memory: { hits: 2 },
      temperature: 0.7,
      dispositionSet: expect.stringMatching(/^[0-9a-f]{28}$/),
    });
    expect(d.inputs!.presentUserIds).toEqual([m.authorId, member].sort());
    expect(typeof d.inputs!.hour).toBe('number');
    expect(d.inputs!.budgetFraction).toBeGreaterThan(0.9);
    if (d.dimensions.outputShape !== 'react-only') {
      const asked = await waitFor(() => contexts.find((c) => c.channelId === channel));
      expect(asked.presentUserIds).toEqual([m.authorId, member].sort());
      expect(asked.strategy).toBe(d.dimensions.contextStrategy);
    }
    // Postgres keeps the same inputs, and the replay recomputes the same choice.
    const listed = await waitFor(async () => {
      const r = await s.request(Subjects.router.decisionsList, {
        guildId: guild,
        channelId: channel,
      });
      return r.data.decisions[0];
    });
    expect(listed.inputs).toEqual(d.inputs);
    const r = await s.request(Subjects.router.replay, { decisionId: d.decisionId });
    expect(r).toMatchObject({ ok: true, data: { chosen: d.chosen, identical: true } });
    expect(choiceJson(r.data.candidates, r.data.chosen)).toBe(choiceJson(d.candidates, d.chosen));
  });

  it('replays a decision after its dispositions changed, from the set its scores read', async () => {
    const channel = snowflake();
    await s.discord.human(guild, channel, 'hello there everyone');
    const d: RouterDecision = await waitFor(() => s.decisions(channel)[0]);
    await waitFor(async () => (await s.request(Subjects.router.replay, d)).ok);
    const upsert = await s.request(Subjects.admin.dispositionUpsert, { id: d.chosen, weight: 0 });
    expect(upsert.ok).toBe(true);
    const r = await s.request(Subjects.router.replay, { decisionId: d.decisionId });
    expect(r.data).toMatchObject({ chosen: d.chosen, identical: true });
    await s.request(Subjects.admin.dispositionUpsert, { id: d.chosen, weight: 1 });
  });

  it('answers NOT_FOUND for an unknown decision and BAD_REQUEST for a bad one', async () => {
    expect(await s.request(Subjects.router.replay, { decisionId: 'nope' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    const bad = await s.request(Subjects.router.replay, { decisionId: 42 });
    expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(JSON.stringify(bad.error.details)).toContain('decisionId');
  });

  it('1,000 stored decisions made on the decide path replay byte-identical', async () => {
    const log = s.router.get(DecisionLog);
    const store = s.router.get(DispositionStore);
    const contents = ['hi', 'dit what now?', 'remember that? lol', 'you are wrong', ''];
    const decisions: RouterDecision[] = [];
    memoryHits = 0;
    for (let i = 0; i < 1000; i++) {
      const r = seededRandom(`stored-${i}`);
      // The decide path gathers the room's inputs; then they are varied (room, memory,
      // budget, hour, temperature, interruption) as other moments would have them.
      const base: DecisionInputs =
        i % 20 === 0 || decisions.length === 0
          ? (
              await s.request(Subjects.router.decide, {
                guildId: guild,
                channelId: snowflake(),
                content: contents[i % contents.length],
                seed: `d${i}`,
              })
            ).data.inputs
          : decisions[decisions.length - 1].inputs!;
      const ds = i % 3 === 0 ? CANONICAL_DISPOSITIONS.slice(0, 7) : CANONICAL_DISPOSITIONS;
      const inputs: DecisionInputs = {
        ...base,
        trigger: (['reactive', 'interruption', 'self-followup', 'speculative'] as const)[i % 4],
        room: {
          ratePerMin: Math.round(r() * 2000) / 100,
          humansActive: Math.floor(r() * 6),
          botRun: Math.floor(r() * 4),
        },
        memory: { hits: Math.floor(r() * 4) },
        budgetFraction: Math.round(r() * 1000) / 1000,
        hour: Math.floor(r() * 24),
        temperature: [0, 0.3, 0.7, 1.5][i % 4],
        ...(i % 4 === 1
          ? {
              interruption: {
                action: (['abort', 'fold', 'continue'] as const)[i % 3],
                parentDispositionId: 'settle-debate',
              },
            }
          : {}),
        dispositionSet: dispositionSetId(ds),
      };
      await store.remember(inputs.dispositionSet, ds);
      const seed = `seed-${i}`;
      const routed = routeFromInputs(ds, inputs, seed);
      const d: RouterDecision = {
        decisionId: `replay-${guild}-${i}`,
        guildId: guild,
        channelId: guild,
        agentId: 'dit',
        trigger: inputs.trigger,
        candidates: routed.candidates,
        chosen: routed.chosen,
        seed,
        dimensions: routed.dimensions,
        inputs,
        subagents: [],
        beats: [],
        latencyMs: 0,
        costUsd: 0,
        models: [],
        at: new Date().toISOString(),
      };
      await log.save(d, []);
      decisions.push(d);
    }
    let identical = 0;
    for (const d of decisions) {
      const r = await s.request(Subjects.router.replay, { decisionId: d.decisionId });
      expect(r.ok).toBe(true);
      expect(choiceJson(r.data.candidates, r.data.chosen)).toBe(choiceJson(d.candidates, d.chosen));
      if (r.data.identical) identical++;
    }
    expect(identical).toBe(1000);
    expect(new Set(decisions.map((d) => d.chosen)).size).toBeGreaterThan(4);
  }, 600_000);
});
