import OpenAI from 'openai';
import { MikroORM } from '@mikro-orm/postgresql';
import { budgetDay, offlineReply } from '@dirigent/llm';
import { creditAdmissions } from '../adapters/metrics';
import { ReservationHolders } from '../adapters/reservation-holders';
import { snowflake, waitFor } from '@dirigent/testing';
import { clientFor, primaryReservation, TOKEN, type RunningGateway, gatewaySuite } from './harness';

const MESSAGES: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'budget me' }];
const MAX_TOKENS = 1000;
const RESERVATION = primaryReservation(MESSAGES, MAX_TOKENS);

describe('llm-gateway budgets (reserve before, settle after, across replicas)', () => {
  // Requests are held upstream while the rest are decided: no upstream timeout here.
  const t = gatewaySuite({ reliability: { timeoutMs: 30_000 }, replicas: 2 });

  afterEach(() => {
    t.primary.behave = () => ({ kind: 'ok' });
  });

  const admin = (gw: RunningGateway, method: string, path: string, body?: unknown, token = TOKEN) =>
    fetch(`http://127.0.0.1:${gw.port}/admin/llm${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const spendRow = async (guild: string) => {
    const [row] = (await t.gw.app
      .get(MikroORM)
      .em.getConnection()
      .execute(`select * from llm_guild_spend where guild_id = ?`, [guild], 'all')) as any[];
    return row;
  };

  async function storm(gateways: RunningGateway[]) {
    const guild = snowflake();
    const limitMicros = RESERVATION * 10 + Math.floor(RESERVATION / 2);
    expect(
      (await admin(t.gw, 'PUT', `/budgets/${guild}`, { usdPerDay: limitMicros / 1e6 })).status,
    ).toBe(200);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const before = t.primary.hits();
    t.primary.behave = () => ({ kind: 'hold', until: held });
    const refused: any[] = [];
    const calls = Array.from({ length: 50 }, (_, i) =>
      clientFor(gateways[i % gateways.length], guild)
        .chat.completions.create({
          model: 'gpt-primary',
          messages: MESSAGES,
          max_tokens: MAX_TOKENS,
        })
        .then(
          () => 'admitted' as const,
          (e) => {
            refused.push(e);
            return 'refused' as const;
          },
        ),
    );
    // every request is decided while the admitted ones are still held upstream
    await waitFor(
      () => refused.length === 40 && t.primary.hits() - before === 10,
      20_000,
      25,
      '40 refusals',
    );
    release();
    const results = await Promise.all(calls);
    expect(results.filter((r) => r === 'admitted')).toHaveLength(10);
    for (const e of refused) {
      expect(e.status).toBe(429);
      expect(e.error).toMatchObject({ type: 'budget_exhausted', code: 'budget_exhausted' });
      expect(e.headers.get('x-should-retry')).toBe('false');
    }
    const row = await waitFor(async () => {
      const r = await spendRow(guild);
      return r && Number(r.reserved_micros) === 0 ? r : undefined;
    });
    // the fake bills 10 in + 5 out tokens per call
    expect(Number(row.spent_micros)).toBe(10 * (10 * 1 + 5 * 2));
    expect(Number(row.spent_micros)).toBeLessThanOrEqual(limitMicros);
    return guild;
  }

  it('admits at most what fits: 50 concurrent requests against a budget for 10', async () => {
    await storm([t.gw]);
  });

  it('holds across two gateway replicas sharing Postgres', async () => {
    await storm([t.gw, t.gateways[1]]);
  });

  it('admits every one of many concurrent first requests of a new guild when the budget fits', async () => {
    const guild = snowflake();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        clientFor(i % 2 ? t.gw : t.gateways[1], guild)
          .chat.completions.create({
            model: 'gpt-primary',
            messages: MESSAGES,
            max_tokens: MAX_TOKENS,
          })
          .then(
            () => 'admitted',
            (e) => `${e.status} ${e.message}`,
          ),
      ),
    );
    expect(results.filter((r) => r !== 'admitted')).toEqual([]);
  });

  it('serves a busy guild from credit reserved ahead, gives it back when idle, and books exactly what was spent', async () => {
    const guild = snowflake();
    const before = (await creditAdmissions.get()).values[0]?.value ?? 0;
    const client = clientFor(t.gw, guild);
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next++ < 200)
          await client.chat.completions.create({
            model: 'gpt-primary',
            messages: MESSAGES,
            max_tokens: MAX_TOKENS,
          });
      }),
    );
    expect((await creditAdmissions.get()).values[0]?.value ?? 0).toBeGreaterThan(before);
    // the fake bills 10 in + 5 out tokens per call; unused credit goes back
    const row = await waitFor(
      async () => {
        const r = await spendRow(guild);
        return r && Number(r.reserved_micros) === 0 && Number(r.spent_micros) === 200 * 20
          ? r
          : undefined;
      },
      20_000,
      50,
      'credit given back and every call booked',
    );
    expect(Number(row.spent_micros)).toBe(200 * 20);
    const holders = (await t.gw.app
      .get(MikroORM)
      .em.getConnection()
      .execute(
        `select reserved_micros from llm_reservation_holder where guild_id = ?`,
        [guild],
        'all',
      )) as any[];
    expect(holders.map((h) => Number(h.reserved_micros))).toEqual([0]);
  });

  it("records which instance holds a reservation, and releases a dead instance's share", async () => {
    const sql = (q: string, p: unknown[] = []) =>
      t.gw.app.get(MikroORM).em.getConnection().execute(q, p, 'all') as Promise<any[]>;
    const guild = snowflake();
    const day = budgetDay(Date.now());
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    t.primary.behave = () => ({ kind: 'hold', until: held });
    const before = t.primary.hits();
    const pending = clientFor(t.gw, guild).chat.completions.create({
      model: 'gpt-primary',
      messages: MESSAGES,
      max_tokens: MAX_TOKENS,
    });
    await waitFor(() => t.primary.hits() > before);
    const me = t.gw.app.get(ReservationHolders).instanceId;
    const [holder] = await sql(
      `select reserved_micros from llm_reservation_holder where guild_id = ? and instance_id = ?`,
      [guild, me],
    );
    expect(Number(holder.reserved_micros)).toBe(RESERVATION);
    release();
    await pending;
    await waitFor(async () => {
      const [h] = await sql(
        `select reserved_micros from llm_reservation_holder where guild_id = ?`,
        [guild],
      );
      return (
        Number(h.reserved_micros) === 0 && Number((await spendRow(guild)).reserved_micros) === 0
      );
    });

    // an instance that died holding 500 µ$ of this guild's reservations
    const dead = '00000000-0000-4000-8000-' + snowflake().slice(-12);
    await sql(
      `insert into llm_gateway_instance (instance_id, heartbeat_at) values (?, now() - interval '10 minutes')`,
      [dead],
    );
    await sql(
      `insert into llm_reservation_holder (guild_id, day, instance_id, reserved_micros) values (?, ?, ?, 500)`,
      [guild, day, dead],
    );
    await sql(
      `update llm_guild_spend set reserved_micros = reserved_micros + 500 where guild_id = ?`,
      [guild],
    );
    expect(await t.gateways[1].app.get(ReservationHolders).reap()).toContain(dead);
    expect(Number((await spendRow(guild)).reserved_micros)).toBe(0);
    expect(await sql(`select * from llm_reservation_holder where instance_id = ?`, [dead])).toEqual(
      [],
    );
    expect(await sql(`select * from llm_gateway_instance where instance_id = ?`, [dead])).toEqual(
      [],
    );
    // the live instances are never reaped
    expect(
      await sql(`select * from llm_gateway_instance where instance_id = ?`, [me]),
    ).toHaveLength(1);
  });

  it('refuses with 429 budget_exhausted when even one request does not fit, and reports spend', async () => {
    const guild = snowflake();
    await admin(t.gw, 'PUT', `/budgets/${guild}`, { usdPerDay: 0.000001 });
    const err = await clientFor(t.gw, guild)
      .chat.completions.create({ model: 'gpt-primary', messages: MESSAGES, max_tokens: MAX_TOKENS })
      .catch((e) => e);
    expect(err.status).toBe(429);
    expect(err.message).toContain('budget exhausted');
    // a free model still answers
    const free = await clientFor(t.gw, guild).chat.completions.create({
      model: 'echo',
      messages: MESSAGES,
    });
    expect(free.choices[0].message.content).toBe(
      offlineReply({ model: 'echo', messages: [{ role: 'user', content: 'budget me' }] }, 'echo'),
    );
    await admin(t.gw, 'PUT', `/budgets/${guild}`, { usdPerDay: 1 });
    await clientFor(t.gateways[1], guild).chat.completions.create({
      model: 'gpt-primary',
      messages: MESSAGES,
      max_tokens: MAX_TOKENS,
    });
    const spend = await waitFor(async () => {
      const res = (await (await admin(t.gw, 'GET', `/spend/${guild}`)).json()) as any;
      return res.days?.[0]?.spentUsd > 0 && res.days[0].reservedUsd === 0 ? res : undefined;
    });
    expect(spend.days[0]).toMatchObject({ spentUsd: 0.00002, reservedUsd: 0, limitUsd: 1 });
    const usage = await waitFor(async () => {
      const res = (await (await admin(t.gw, 'GET', `/usage/${guild}`)).json()) as any;
      return res.usage?.length === 3 ? res : undefined;
    });
    expect(usage.usage).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          model: 'gpt-primary',
          outcome: 'ok',
          calls: 1,
          inputTokens: 10,
          outputTokens: 5,
          costUsd: 0.00002,
        }),
        expect.objectContaining({ model: null, outcome: 'budget_exhausted', calls: 1 }),
        expect.objectContaining({ model: 'echo', outcome: 'ok', calls: 1, costUsd: 0 }),
      ]),
    );
    expect((await admin(t.gw, 'GET', `/usage/${guild}?day=nope`)).status).toBe(400);
    expect((await admin(t.gw, 'DELETE', `/budgets/${guild}`)).status).toBe(200);
  });

  it('serves the policy admin API behind the token: a purpose override routes at once and is removable', async () => {
    expect((await admin(t.gw, 'GET', '/policy', undefined, 'nope-nope-nope-nope')).status).toBe(
      401,
    );
    const purpose = `zz-${snowflake()}`;
    const bad = await admin(t.gw, 'PUT', `/purposes/${purpose}`, { model: 'gpt-9' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.param).toBe('model');
    const badBody = await admin(t.gw, 'PUT', `/purposes/${purpose}`, {
      model: 'echo',
      fallbacks: 'x',
    });
    expect(((await badBody.json()) as any).error.param).toBe('fallbacks');
    expect(
      (await admin(t.gw, 'PUT', `/purposes/${purpose}`, { model: 'echo', fallbacks: ['no-reply'] }))
        .status,
    ).toBe(200);
    const res = await clientFor(t.gw, snowflake()).chat.completions.create({
      model: `purpose:${purpose}`,
      messages: MESSAGES,
    });
    expect(res.model).toBe('echo');
    // changed again: the next call takes the new route (no route outlives its policy)
    expect((await admin(t.gw, 'PUT', `/purposes/${purpose}`, { model: 'no-reply' })).status).toBe(
      200,
    );
    const changed = await clientFor(t.gw, snowflake()).chat.completions.create({
      model: `purpose:${purpose}`,
      messages: MESSAGES,
    });
    expect(changed.model).toBe('no-reply');
    await admin(t.gw, 'PUT', `/purposes/${purpose}`, { model: 'echo', fallbacks: ['no-reply'] });
    const policy = (await (await admin(t.gw, 'GET', '/policy')).json()) as any;
    expect(policy.purposes[purpose]).toEqual({ model: 'echo', fallbacks: ['no-reply'] });
    expect(policy.purposes.agent).toEqual({ model: 'gpt-primary', fallbacks: ['gpt-backup'] });
    // the other replica picks the override up on its refresh
    await waitFor(
      async () => {
        const r = await clientFor(t.gateways[1], snowflake())
          .chat.completions.create({ model: `purpose:${purpose}`, messages: MESSAGES })
          .catch(() => undefined);
        return r?.model === 'echo';
      },
      5000,
      100,
      'replica refresh',
    );
    expect((await admin(t.gw, 'DELETE', `/purposes/${purpose}`)).status).toBe(200);
    const gone = await clientFor(t.gw, snowflake())
      .chat.completions.create({ model: `purpose:${purpose}`, messages: MESSAGES })
      .catch((e) => e);
    expect(gone.status).toBe(400);
  });
});
