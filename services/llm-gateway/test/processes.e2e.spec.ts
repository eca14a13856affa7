import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '@dirigent/persistence';
import {
  snowflake,
  spawnNode,
  testDatabaseUrl,
  testNatsUrl,
  waitFor,
  type Spawned,
} from '@dirigent/testing';
import { FakeUpstream } from './fake-upstreams';
import { primaryReservation, testConfig, TOKEN } from './harness';

const MAIN = 'dist/services/llm-gateway/main.js';
const MESSAGES: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'two processes' }];
const MAX_TOKENS = 1000;
const RESERVATION = primaryReservation(MESSAGES, MAX_TOKENS);

interface Proc {
  spawned: Spawned;
  port: number;
  client(guild: string): OpenAI;
}

/**
 * The built gateway as separate processes sharing Postgres (`npm run build` first): the
 * budget holds across them, a SIGKILLed one's reservations are released by the other,
 * and a bad configuration exits 2 with one line.
 */
describe('llm-gateway as processes', () => {
  let primary: FakeUpstream;
  let backup: FakeUpstream;
  let anthropic: FakeUpstream;
  let configPath: string;
  const procs: Proc[] = [];
  let orm: MikroORM;
  const spendRow = async (guild: string) =>
    (
      await orm.em
        .getConnection()
        .execute(`select * from llm_guild_spend where guild_id = ?`, [guild], 'all')
    )[0];
  const admin = (p: Proc, path: string, body: unknown) =>
    fetch(`http://127.0.0.1:${p.port}/admin/llm${path}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  const start = async (): Promise<Proc> => {
    const spawned = spawnNode(MAIN, {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      LOG_LEVEL: 'info',
      LLM_GATEWAY_PORT: '0',
      DIRIGENT_LLM_CONFIG: configPath,
      DIRIGENT_GATEWAY_TOKEN: TOKEN,
      TEST_OPENAI_KEY: 'sk-test-openai',
      TEST_ANTHROPIC_KEY: 'sk-ant-test',
    });
    const port = await waitFor(
      () => {
        if (spawned.child.exitCode !== null) throw new Error(spawned.output());
        const m = /llm-gateway listening on :(\d+)/.exec(spawned.output());
        return m ? Number(m[1]) : undefined;
      },
      30_000,
      50,
      'the gateway to listen',
    );
    const proc: Proc = {
      spawned,
      port,
      client: (guild) =>
        new OpenAI({
          apiKey: TOKEN,
          baseURL: `http://127.0.0.1:${port}/v1`,
          maxRetries: 0,
          defaultHeaders: { 'x-dirigent-guild': guild },
        }),
    };
    procs.push(proc);
    return proc;
  };

  beforeAll(async () => {
    orm = await MikroORM.init(ormConfig(testDatabaseUrl()));
    [primary, backup, anthropic] = await Promise.all([
      FakeUpstream.start('openai'),
      FakeUpstream.start('openai'),
      FakeUpstream.start('anthropic'),
    ]);
    configPath = join(mkdtempSync(join(tmpdir(), 'llm-e2e-')), 'llm.json');
    writeFileSync(
      configPath,
      JSON.stringify(
        testConfig(
          { primary, backup, anthropic },
          { timeoutMs: 30_000, instanceHeartbeatMs: 200, instanceStaleMs: 1500 },
        ),
      ),
    );
  });

  afterAll(async () => {
    for (const p of procs) await p.spawned.kill('SIGTERM');
    await Promise.all([primary?.close(), backup?.close(), anthropic?.close()]);
    await orm?.close();
  });

  it('holds a budget for 10 against 50 concurrent requests split over two processes', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const guild = snowflake();
    const limit = RESERVATION * 10 + Math.floor(RESERVATION / 2);
    expect((await admin(a, `/budgets/${guild}`, { usdPerDay: limit / 1e6 })).status).toBe(200);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const before = primary.hits();
    primary.behave = () => ({ kind: 'hold', until: held });
    let refused = 0;
    const calls = Array.from({ length: 50 }, (_, i) =>
      (i % 2 ? a : b)
        .client(guild)
        .chat.completions.create({
          model: 'gpt-primary',
          messages: MESSAGES,
          max_tokens: MAX_TOKENS,
        })
        .then(
          () => 'admitted',
          (e) => {
            refused++;
            return `${e.status} ${e.code}`;
          },
        ),
    );
    await waitFor(
      () => refused === 40 && primary.hits() - before === 10,
      20_000,
      25,
      '40 refusals',
    );
    release();
    const results = await Promise.all(calls);
    expect(results.filter((r) => r === 'admitted')).toHaveLength(10);
    expect(results.filter((r) => r !== 'admitted')).toEqual(Array(40).fill('429 budget_exhausted'));
    const row = await waitFor(async () => {
      const r = await spendRow(guild);
      return Number(r.reserved_micros) === 0 ? r : undefined;
    });
    expect(Number(row.spent_micros)).toBeLessThanOrEqual(limit);
    primary.behave = () => ({ kind: 'ok' });
  });

  it('releases the reservations of a SIGKILLed process from the surviving one', async () => {
    const [a] = procs;
    const victim = await start();
    const guild = snowflake();
    const before = primary.hits();
    primary.behave = () => ({ kind: 'hang' });
    const pending = victim
      .client(guild)
      .chat.completions.create({ model: 'gpt-primary', messages: MESSAGES, max_tokens: MAX_TOKENS })
      .catch((e: Error) => e);
    await waitFor(() => primary.hits() > before);
    expect(Number((await spendRow(guild)).reserved_micros)).toBe(RESERVATION);
    await victim.spawned.kill('SIGKILL');
    expect(await pending).toBeInstanceOf(Error);
    // the survivor notices the silence and gives the reservation back
    await waitFor(
      async () => Number((await spendRow(guild)).reserved_micros) === 0,
      15_000,
      100,
      'release',
    );
    primary.behave = () => ({ kind: 'ok' });
    // and the guild can spend again
    const ok = await a
      .client(guild)
      .chat.completions.create({ model: 'gpt-primary', messages: MESSAGES });
    expect(ok.model).toBe('gpt-primary');
  });

  it('exits 2 with one line naming a bad configuration', async () => {
    const bad = join(mkdtempSync(join(tmpdir(), 'llm-e2e-bad-')), 'llm.yaml');
    writeFileSync(bad, 'providers: []\nmodels: []\n');
    const child = spawnNode(MAIN, {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      DIRIGENT_LLM_CONFIG: bad,
    });
    const code = await new Promise<number | null>((r) => child.child.once('exit', r));
    expect(code).toBe(2);
    expect(child.output().trim().split('\n')).toEqual([
      expect.stringMatching(/^llm-gateway: config error: DIRIGENT_LLM_CONFIG .*providers/),
    ]);
  });
});
