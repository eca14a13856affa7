import { MikroORM } from '@mikro-orm/postgresql';
import { snowflake, waitFor } from '@dirigent/testing';
import { FakeUpstream, type Behavior } from './fake-upstreams';
import { clientFor, startGateway, testConfig, type RunningGateway } from './harness';

describe('llm-gateway reliability (retries, fallbacks, cooldown, timeouts, aborts)', () => {
  let primary: FakeUpstream;
  let backup: FakeUpstream;
  let anthropic: FakeUpstream;
  let gw: RunningGateway | undefined;

  beforeAll(async () => {
    [primary, backup, anthropic] = await Promise.all([
      FakeUpstream.start('openai'),
      FakeUpstream.start('openai'),
      FakeUpstream.start('anthropic'),
    ]);
  });

  afterEach(async () => {
    await gw?.close();
    gw = undefined;
    for (const f of [primary, backup, anthropic]) {
      f.behave = () => ({ kind: 'ok' });
      f.seen.length = 0;
    }
  });

  afterAll(async () => {
    await Promise.all([primary?.close(), backup?.close(), anthropic?.close()]);
  });

  const start = async (reliability: Record<string, number> = {}) => {
    gw = await startGateway(testConfig({ primary, backup, anthropic }, reliability));
    return gw;
  };
  const ask = (g: RunningGateway, guild = snowflake(), signal?: AbortSignal) =>
    clientFor(g, guild)
      .chat.completions.create(
        { model: 'purpose:agent', messages: [{ role: 'user', content: 'hi' }] },
        { signal },
      )
      .withResponse();
  const ledger = async (g: RunningGateway, guild: string) =>
    waitFor(async () => {
      const rows = (await g.app
        .get(MikroORM)
        .em.getConnection()
        .execute(`select * from llm_usage where guild_id = ?`, [guild], 'all')) as any[];
      return rows.length ? rows[0] : undefined;
    });

  it('retries a 500 once, then falls back, and records the fallback', async () => {
    const g = await start();
    primary.behave = () => ({ kind: 'error', status: 500 });
    const guild = snowflake();
    const res = await ask(g, guild);
    expect(res.data.model).toBe('gpt-backup');
    expect(res.data.choices[0].message.content).toBe('upstream says hi to llama3');
    expect(primary.hits()).toBe(2);
    expect(backup.hits()).toBe(1);
    expect(res.response.headers.get('x-dirigent-fallbacks')).toBe('gpt-primary');
    expect(await ledger(g, guild)).toMatchObject({
      model: 'gpt-backup',
      fallbacks: ['gpt-primary'],
      attempts: 3,
      outcome: 'ok',
    });
  });

  it('honours Retry-After on 429 before retrying, then falls back', async () => {
    const g = await start();
    primary.behave = () => ({ kind: 'error', status: 429, headers: { 'retry-after': '1' } });
    const res = await ask(g);
    expect(res.data.model).toBe('gpt-backup');
    expect(primary.hits()).toBe(2);
    expect(primary.seen[1].at - primary.seen[0].at).toBeGreaterThanOrEqual(950);
  });

  it('falls back at once when Retry-After is longer than the gateway will wait', async () => {
    const g = await start();
    primary.behave = () => ({ kind: 'error', status: 429, headers: { 'retry-after': '30' } });
    const res = await ask(g);
    expect(res.data.model).toBe('gpt-backup');
    expect(primary.hits()).toBe(1);
  });

  it('times out a hanging upstream, cancels it, and falls back', async () => {
    const g = await start({ timeoutMs: 1000, retries: 0 });
    primary.behave = () => ({ kind: 'hang' });
    const res = await ask(g);
    expect(res.data.model).toBe('gpt-backup');
    expect(await primary.seen[0].aborted).toBe(true);
  });

  it('fails a stream over before its first chunk', async () => {
    const g = await start({ retries: 0 });
    primary.behave = () => ({ kind: 'error', status: 503 });
    const stream = await clientFor(g, snowflake()).chat.completions.create({
      model: 'purpose:agent',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    expect(text).toBe('upstream says hi to llama3');
    expect(primary.hits()).toBe(1);
  });

  it('does not fail a stream over after its first chunk: the client gets the error', async () => {
    const g = await start({ retries: 0 });
    primary.behave = () => ({ kind: 'break' });
    const stream = await clientFor(g, snowflake()).chat.completions.create({
      model: 'purpose:agent',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    const error = await (async () => {
      for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    })().catch((e: Error) => e);
    expect(text).toBe('partial ');
    expect(String(error)).toMatch(/upstream failed mid-stream/);
    expect(backup.hits()).toBe(0);
  });

  it('cools a failing deployment down, skips it, and takes it back after the cooldown', async () => {
    const g = await start({ retries: 0, cooldownAfterFailures: 2, cooldownMs: 1500 });
    primary.behave = () => ({ kind: 'error', status: 502 });
    expect((await ask(g)).data.model).toBe('gpt-backup');
    expect((await ask(g)).data.model).toBe('gpt-backup');
    expect(primary.hits()).toBe(2);
    // cooling down: the primary is not even tried
    const skipped = await ask(g);
    expect(skipped.data.model).toBe('gpt-backup');
    expect(skipped.response.headers.get('x-dirigent-fallbacks')).toBe('gpt-primary');
    expect(primary.hits()).toBe(2);
    const metrics = await (await fetch(`http://127.0.0.1:${g.port}/metrics`)).text();
    expect(metrics).toContain('dirigent_llm_deployments_cooling_down 1');
    primary.behave = () => ({ kind: 'ok' });
    await waitFor(
      async () => (await ask(g)).data.model === 'gpt-primary',
      10_000,
      100,
      'primary back',
    );
    expect(primary.hits()).toBe(3);
  });

  it('cancels the upstream call when the client disconnects, and releases the reservation', async () => {
    const g = await start({ timeoutMs: 30_000 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    primary.behave = () => ({ kind: 'hold', until: held });
    const guild = snowflake();
    const ac = new AbortController();
    const pending = ask(g, guild, ac.signal).catch((e: Error) => e);
    await waitFor(() => primary.hits() === 1);
    ac.abort();
    expect(String(await pending)).toMatch(/aborted/i);
    expect(await primary.seen[0].aborted).toBe(true);
    release();
    expect(backup.hits()).toBe(0);
    expect(await ledger(g, guild)).toMatchObject({ outcome: 'aborted' });
    await waitFor(async () => {
      const [row] = (await g.app
        .get(MikroORM)
        .em.getConnection()
        .execute(`select * from llm_guild_spend where guild_id = ?`, [guild], 'all')) as any[];
      return row && Number(row.reserved_micros) === 0 && Number(row.spent_micros) === 0;
    });
  });

  it('sends a prompt too long for a model to a larger-window model, before and after the upstream says so', async () => {
    const g = await start();
    const client = clientFor(g, snowflake());
    const long = 'word '.repeat(200);
    const res = await client.chat.completions.create({
      model: 'purpose:router-classify',
      messages: [{ role: 'user', content: long }],
    });
    expect(res.model).toBe('gpt-primary');
    expect(primary.seen.map((s) => s.body.model)).toEqual(['gpt-4o-mini']);
    primary.behave = (seen): Behavior =>
      seen.body.model === 'tiny'
        ? {
            kind: 'error',
            status: 400,
            message: "This model's maximum context length is 50 tokens",
          }
        : { kind: 'ok' };
    const overflowed = await client.chat.completions.create({
      model: 'gpt-small',
      messages: [{ role: 'user', content: 'short' }],
    });
    expect(overflowed.model).toBe('gpt-primary');
    expect(primary.seen.slice(1).map((s) => s.body.model)).toEqual(['tiny', 'gpt-4o-mini']);
  });

  it('answers 502 naming the tried models when every deployment fails, and passes upstream 400s to the caller', async () => {
    const g = await start({ retries: 0 });
    primary.behave = () => ({ kind: 'error', status: 500 });
    backup.behave = () => ({ kind: 'error', status: 500 });
    await expect(ask(g)).rejects.toMatchObject({ status: 502, code: 'upstream_error' });
    backup.behave = () => ({ kind: 'error', status: 400, message: 'bad logit_bias' });
    await expect(ask(g)).rejects.toMatchObject({ status: 400, code: 'upstream_rejected' });
  });
});
