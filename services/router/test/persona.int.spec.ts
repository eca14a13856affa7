import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Subjects, subject, type RouterDecision } from '@dirigent/contracts';
import { startServiceApp } from '@dirigent/service-kit';
import { snowflake, testDatabaseUrl, testNatsUrl, waitFor } from '@dirigent/testing';
import { RouterService } from '../router.module';
import { startRouterStack, type RouterStack } from './harness';

// Only `factual-recall` (deadpan, single-line) may answer a mention: every turn speaks.
const yaml = (banned: string, extra = '') => `
agents:
  - id: dit
    name: Dit
    voices: [deadpan]
    bannedPhrases: ['${banned}']
    neverDo: ['/secret plan/i', 'pretend to be human']
    toneBounds: { formality: [0.1, 0.4] }
    learning: { rate: 0.1, bounds: [0.8, 1.2] }
${extra}
speculative: { enabled: false }
followups: { enabled: false }
`;

/**
 * Personas in Postgres through NATS with the real gateway: seeding once, versions, the admin
 * subjects and their refusals, rollback, the active version in gates, scores, the
 * synthesizer and on every decision, and learning from reactions and replies.
 */
describe('router: personas', () => {
  let s: RouterStack;
  const guild = snowflake();
  const prompts: string[] = [];
  let answer = 'as an AI I say forty-two';

  const ask = async (subj: string, data: unknown) => s.request(subj, data);
  const ok = async (subj: string, data: unknown) => {
    const r = await ask(subj, data);
    if (!r.ok) throw new Error(`${subj}: ${JSON.stringify(r.error)}`);
    return r.data;
  };
  const changed = () =>
    s.events.filter((e) => e.subject === Subjects.router.personaChanged).map((e) => e.data);
  /** Events are at least once (a redelivered signal publishes its events again): one per version. */
  const adjusted = () => [
    ...new Map(
      s.events
        .filter((e) => e.subject === Subjects.router.personaWeightsAdjusted)
        .map((e) => [e.data.version, e.data]),
    ).values(),
  ];

  /** A mention answered: the decision and the id of the agent's delivered message. */
  const turn = async (channel: string) => {
    await s.discord.human(guild, channel, 'dit, what is the answer?');
    const d: RouterDecision = await waitFor(() => s.decisions(channel)[0], 30_000);
    const echo = d.beats.length
      ? await waitFor(() => s.discord.echoes.find((e) => e.channelId === channel), 30_000)
      : undefined;
    return { d, echo };
  };
  const react = (channel: string, messageId: string, userId: string, emoji: string) =>
    s.messaging.publishEvent(
      subject.discordEvent(guild, channel, 'reaction.added'),
      'reaction.added',
      { guildId: guild, channelId: channel, messageId, userId, emoji },
    );
  const weight = async () =>
    (await ok(Subjects.admin.personaGet, { agentId: 'dit' })).dispositionWeights[
      'factual-recall'
    ] ?? 1;

  beforeAll(async () => {
    s = await startRouterStack(yaml('as an AI'));
    s.upstream.behave = (req: any) => {
      prompts.push(req.body?.messages?.[0]?.content ?? '');
      return { kind: 'ok', text: answer };
    };
  });
  afterAll(async () => {
    await s?.close();
  });

  it('seeds version 1 from the YAML', async () => {
    const p = await ok(Subjects.admin.personaGet, { agentId: 'dit' });
    expect(p).toMatchObject({
      agentId: 'dit',
      version: 1,
      cause: 'seed',
      voices: { eligible: ['deadpan'], never: [] },
      bannedPhrases: ['as an AI'],
      neverDo: ['/secret plan/i', 'pretend to be human'],
      toneBounds: { formality: [0.1, 0.4], energy: [0, 1] },
      dispositionWeights: {},
      learning: { enabled: true, rate: 0.1, bounds: [0.8, 1.2] },
    });
    expect((await ok(Subjects.admin.personaVersions, { agentId: 'dit' })).versions).toEqual([
      { version: 1, at: expect.any(String), cause: 'seed' },
    ]);
    expect((await ok(Subjects.admin.personaList, {})).personas.map((x: any) => x.agentId)).toEqual([
      'dit',
    ]);
  });

  it('refuses bad input naming the field, and unknown agents and versions', async () => {
    const refused = async (
      data: unknown,
      field: string,
      subj: string = Subjects.admin.personaUpsert,
    ) => {
      const r = await ask(subj, data);
      expect(r.ok).toBe(false);
      expect(r.error.code).toBe('BAD_REQUEST');
      expect(r.error.details.map((d: any) => d.field)).toContain(field);
    };
    await refused(
      { agentId: 'dit', toneBounds: { formality: [0.9, 0.1] } },
      'toneBounds.formality',
    );
    await refused({ agentId: 'dit', learning: { rate: 5 } }, 'learning.rate');
    await refused({ agentId: 'dit', learning: { bounds: [2, 1] } }, 'learning.bounds');
    await refused({ agentId: 'dit', voices: { eligible: ['loud'] } }, 'voices.eligible');
    await refused({ agentId: 'dit', bannedPhrases: 'as an AI' }, 'bannedPhrases');
    await refused(
      { agentId: 'dit', dispositionWeights: { 'Not An Id': 1 } },
      'dispositionWeights.Not An Id',
    );
    await refused({ agentId: 'dit', dispositionWeights: { x: -2 } }, 'dispositionWeights.x');
    await refused({ agentId: 'dit', version: 0 }, 'version', Subjects.admin.personaRollback);
    await refused({ agentId: 'no such agent!' }, 'agentId', Subjects.admin.personaGet);
    for (const [subj, data] of [
      [Subjects.admin.personaGet, { agentId: 'nobody' }],
      [Subjects.admin.personaUpsert, { agentId: 'nobody', neverDo: [] }],
      [Subjects.admin.personaRollback, { agentId: 'dit', version: 99 }],
    ] as const) {
      expect((await ask(subj, data)).error.code).toBe('NOT_FOUND');
    }
    // Nothing refused was written.
    expect((await ok(Subjects.admin.personaGet, { agentId: 'dit' })).version).toBe(1);
  });

  it('keeps the persona on every decision and in the synthesizer; cuts banned phrases', async () => {
    const channel = snowflake();
    const { d } = await turn(channel);
    expect(d.chosen).toBe('factual-recall');
    expect(d.personaVersion).toBe(1);
    expect(d.inputs!.personaVersion).toBe(1);
    const sent = await waitFor(() => s.discord.sent(channel)[0]);
    expect(sent.data.content).toBe('I say forty-two');
    const system = prompts.find((p) => p.includes('You are Dit'))!;
    expect(system).toContain('formality 0.1–0.4 (very casual to neutral), energy 0–1');
    expect(system).toContain(
      'Never: never write anything matching secret plan; pretend to be human.',
    );
    expect(system).toContain('“as an AI”');
    const replay = await ok(Subjects.router.replay, { decisionId: d.decisionId });
    expect(replay.identical).toBe(true);
  });

  it('suppresses a reply that breaks a never-do pattern', async () => {
    answer = 'my Secret Plan is to take over the server';
    const channel = snowflake();
    const { d } = await turn(channel);
    expect(d.chosen).toBe('factual-recall');
    expect(d.beats).toEqual([]);
    expect(s.discord.sent(channel)).toEqual([]);
    answer = 'forty-two';
  });

  it('upserts over the active version, gates never voices and announces each change', async () => {
    const p = await ok(Subjects.admin.personaUpsert, {
      agentId: 'dit',
      voices: { eligible: [], never: ['deadpan'] },
      bannedPhrases: ['as an AI', 'frankly'],
    });
    expect(p).toMatchObject({
      version: 2,
      cause: 'admin',
      voices: { eligible: [], never: ['deadpan'] },
      bannedPhrases: ['as an AI', 'frankly'],
      neverDo: ['/secret plan/i', 'pretend to be human'],
      learning: { rate: 0.1 },
    });
    const e = await waitFor(() => changed().find((x) => x.version === 2));
    expect(e).toMatchObject({ agentId: 'dit', previousVersion: 1, cause: 'admin' });
    expect(Object.keys(e.changes).sort()).toEqual(['bannedPhrases', 'voices']);
    const channel = snowflake();
    const { d } = await turn(channel);
    expect(d.personaVersion).toBe(2);
    expect(d.chosen).not.toBe('factual-recall');
    expect(d.candidates.find((c) => c.dispositionId === 'factual-recall')!.score).toBe(0);
    expect((await ok(Subjects.router.replay, { decisionId: d.decisionId })).identical).toBe(true);
  });

  it('rolls back to any version by writing its content as a new one', async () => {
    const p = await ok(Subjects.admin.personaRollback, { agentId: 'dit', version: 1 });
    expect(p).toMatchObject({
      version: 3,
      cause: 'rollback',
      voices: { eligible: ['deadpan'], never: [] },
      bannedPhrases: ['as an AI'],
    });
    const e = await waitFor(() => changed().find((x) => x.version === 3));
    expect(e).toMatchObject({ previousVersion: 2, cause: 'rollback' });
    const { versions } = await ok(Subjects.admin.personaVersions, { agentId: 'dit' });
    expect(versions.map((v: any) => [v.version, v.cause])).toEqual([
      [3, 'rollback'],
      [2, 'admin'],
      [1, 'seed'],
    ]);
  });

  it("learns per guild beside the admin's baseline, which it never rewrites", async () => {
    const channel = snowflake();
    const before = await ok(Subjects.admin.personaGet, { agentId: 'dit' });
    const { d, echo } = await turn(channel);
    expect(d.chosen).toBe('factual-recall');
    const u = snowflake();
    // Repeated until counted: the router keeps the message's origin once it sees it delivered.
    await waitFor(async () => {
      await react(channel, echo!.messageId, u, '👍');
      const r = await ok(Subjects.admin.learningGet, { guildId: guild, agentId: 'dit' });
      return r.adjustments.some((a: any) => a.dispositionId === 'factual-recall');
    }, 30_000);
    const r = await ok(Subjects.admin.learningGet, { guildId: guild, agentId: 'dit' });
    expect(r.adjustments).toEqual([
      {
        contextClass: d.inputs!.contextClass,
        dispositionId: 'factual-recall',
        adjustment: 0.1,
        effective: (await weight()) + 0.1,
      },
    ]);
    const after = await ok(Subjects.admin.personaGet, { agentId: 'dit' });
    expect([after.version, after.dispositionWeights]).toEqual([
      before.version,
      before.dispositionWeights,
    ]);
    expect(adjusted()).toEqual([]);
  });

  it('replays decisions made under older persona versions byte-identical', async () => {
    const all: RouterDecision[] = s.events
      .filter((e) => e.subject.endsWith('.decision'))
      .map((e) => e.data);
    expect(new Set(all.map((d) => d.personaVersion)).size).toBeGreaterThan(2);
    for (const d of all) {
      const r = await ok(Subjects.router.replay, { decisionId: d.decisionId });
      expect([d.personaVersion, r.identical]).toEqual([d.personaVersion, true]);
    }
  });

  it('seeds only on the first start: afterwards the database wins', async () => {
    const before = await ok(Subjects.admin.personaGet, { agentId: 'dit' });
    await s.router.close();
    const dir = mkdtempSync(join(tmpdir(), 'router-persona-'));
    writeFileSync(
      join(dir, 'router.yaml'),
      yaml('changed in the YAML', `  - { id: nova, name: Nova, bannedPhrases: ['indeed'] }`),
    );
    let again: INestApplication | undefined;
    try {
      ({ app: again } = await startServiceApp(RouterService, {
        NATS_URL: testNatsUrl(),
        DATABASE_URL: testDatabaseUrl(),
        LOG_LEVEL: 'silent',
        ROUTER_PORT: '0',
        DIRIGENT_ROUTER_CONFIG: join(dir, 'router.yaml'),
        DIRIGENT_WORKSPACE: dir,
      }));
      expect(await ok(Subjects.admin.personaGet, { agentId: 'dit' })).toEqual(before);
      expect(await ok(Subjects.admin.personaGet, { agentId: 'nova' })).toMatchObject({
        version: 1,
        cause: 'seed',
        bannedPhrases: ['indeed'],
      });
    } finally {
      await again?.close();
    }
    s.router = again!;
  });
});
