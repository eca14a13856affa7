import { randomUUID } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { LLM_USAGE_BATCH_EVENT, LLM_USAGE_EVENT, Subjects } from '@dirigent/contracts';
import { budgetDay, type UsageRecord } from '@dirigent/llm';
import type { Messaging } from '@dirigent/messaging';
import { closeMessaging, snowflake, testMessaging, waitFor } from '@dirigent/testing';
import { INSTANCE_HEADER } from '../adapters/usage-publisher';
import { gatewaySuite } from './harness';

describe('llm-gateway usage ledger (from JetStream, exactly once)', () => {
  const t = gatewaySuite();
  let messaging: Messaging;

  beforeAll(async () => {
    messaging = await testMessaging('ledger-test');
  });

  afterAll(async () => {
    if (messaging) await closeMessaging(messaging);
  });

  const sql = (q: string, p: unknown[] = []) =>
    t.gw.app.get(MikroORM).em.getConnection().execute(q, p, 'all') as Promise<any[]>;

  function usage(guildId: string, reservedUsd: number, costUsd: number): UsageRecord {
    return {
      id: randomUUID(),
      at: new Date().toISOString(),
      guildId,
      purpose: 'agent',
      kind: 'chat',
      stream: false,
      requestedModel: 'purpose:agent',
      model: 'gpt-primary',
      provider: 'oa-primary',
      inputTokens: 10,
      outputTokens: 5,
      reservedUsd,
      costUsd,
      latencyMs: 3,
      outcome: 'ok',
      fallbacks: [],
      attempts: 1,
    };
  }

  const publish = (u: UsageRecord, msgId: string, instance?: string) =>
    messaging.publishEvent(Subjects.llm.usage, LLM_USAGE_EVENT, u, {
      id: msgId,
      ...(instance ? { headers: { [INSTANCE_HEADER]: instance } } : {}),
    });

  it('books the calls of a gateway killed after publishing them, once each, and releases its reservations', async () => {
    const guild = snowflake();
    const day = budgetDay(Date.now());
    // a gateway that reserved 500 µ$ for a call, answered it, published its usage and died
    const killed = randomUUID();
    await sql(`insert into llm_gateway_instance (instance_id, heartbeat_at) values (?, now())`, [
      killed,
    ]);
    await sql(
      `insert into llm_guild_spend (guild_id, day, spent_micros, reserved_micros, updated_at) values (?, ?, 0, 500, now())`,
      [guild, day],
    );
    await sql(
      `insert into llm_reservation_holder (guild_id, day, instance_id, reserved_micros) values (?, ?, ?, 500)`,
      [guild, day, killed],
    );
    const call = usage(guild, 0.0005, 0.0002);
    await publish(call, `llm-usage:${call.id}`, killed);
    const row = await waitFor(async () => {
      const [r] = await sql(`select * from llm_guild_spend where guild_id = ?`, [guild]);
      return Number(r.spent_micros) === 200 ? r : undefined;
    });
    expect(Number(row.reserved_micros)).toBe(0);
    const [holder] = await sql(
      `select reserved_micros from llm_reservation_holder where guild_id = ? and instance_id = ?`,
      [guild, killed],
    );
    expect(Number(holder.reserved_micros)).toBe(0);

    // the same record again (a redelivery past the stream's duplicate window), then another call
    await publish(call, `llm-usage:${call.id}:redelivered`, killed);
    const next = usage(guild, 0, 0.0001);
    await publish(next, `llm-usage:${next.id}`);
    await waitFor(async () => {
      const rows = await sql(`select id from llm_usage where guild_id = ?`, [guild]);
      return rows.length === 2;
    });
    const [after] = await sql(`select * from llm_guild_spend where guild_id = ?`, [guild]);
    expect(Number(after.spent_micros)).toBe(300);
    expect(Number(after.reserved_micros)).toBe(0);
    const ids = (await sql(`select id from llm_usage where guild_id = ?`, [guild])).map(
      (r) => r.id,
    );
    expect(ids.sort()).toEqual([call.id, next.id].sort());
    await sql(`delete from llm_gateway_instance where instance_id = ?`, [killed]);
  });

  it('books the records of a batch once each, also when the batch comes again', async () => {
    const guild = snowflake();
    const calls = [usage(guild, 0, 0.0001), usage(guild, 0, 0.0002), usage(guild, 0, 0.0003)];
    const publishBatch = (msgId: string) =>
      messaging.publishEvent(
        Subjects.llm.usage,
        LLM_USAGE_BATCH_EVENT,
        { records: calls },
        {
          id: msgId,
        },
      );
    await publishBatch(`llm-usage-batch:${calls[0].id}`);
    await waitFor(async () => {
      const [r] = await sql(`select * from llm_guild_spend where guild_id = ?`, [guild]);
      return r && Number(r.spent_micros) === 600;
    });
    // a redelivery past the stream's duplicate window, then one more call
    await publishBatch(`llm-usage-batch:${calls[0].id}:redelivered`);
    const next = usage(guild, 0, 0.0004);
    await publish(next, `llm-usage:${next.id}`);
    await waitFor(async () => {
      const rows = await sql(`select id from llm_usage where guild_id = ?`, [guild]);
      return rows.length === 4;
    });
    const [after] = await sql(`select * from llm_guild_spend where guild_id = ?`, [guild]);
    expect(Number(after.spent_micros)).toBe(1000);
    const ids = (await sql(`select id from llm_usage where guild_id = ?`, [guild])).map(
      (r) => r.id,
    );
    expect(ids.sort()).toEqual([...calls, next].map((c) => c.id).sort());
  });

  it('releases nothing twice: a call settled after its instance was reaped books its cost only', async () => {
    const guild = snowflake();
    const day = budgetDay(Date.now());
    const reaped = randomUUID();
    // the instance's share is already gone (reaped), and with it the reservation
    await sql(
      `insert into llm_guild_spend (guild_id, day, spent_micros, reserved_micros, updated_at) values (?, ?, 0, 700, now())`,
      [guild, day],
    );
    const call = usage(guild, 0.0005, 0.0002);
    await publish(call, `llm-usage:${call.id}`, reaped);
    const row = await waitFor(async () => {
      const [r] = await sql(`select * from llm_guild_spend where guild_id = ?`, [guild]);
      return Number(r.spent_micros) === 200 ? r : undefined;
    });
    // 700 µ$ that other calls hold stay reserved
    expect(Number(row.reserved_micros)).toBe(700);
  });
});
