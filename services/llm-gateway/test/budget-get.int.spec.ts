import { Subjects } from '@dirigent/contracts';
import { budgetDay } from '@dirigent/llm';
import { Messaging } from '@dirigent/messaging';
import { snowflake } from '@dirigent/testing';
import { clientFor, TOKEN, gatewaySuite } from './harness';

describe('dirigent.llm.budget.get', () => {
  const t = gatewaySuite();
  const ask = (data: unknown) => t.gw.app.get(Messaging).request<any>(Subjects.llm.budgetGet, data);

  it('reports the limit, today’s spend and what is left, until the end of the UTC day', async () => {
    const guild = snowflake();
    const put = await fetch(`http://127.0.0.1:${t.gw.port}/admin/llm/budgets/${guild}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ usdPerDay: 2 }),
    });
    expect(put.status).toBe(200);
    const fresh = await ask({ guildId: guild });
    const tomorrow = new Date(Date.parse(`${budgetDay(Date.now())}T00:00:00Z`) + 86_400_000);
    expect(fresh).toEqual({
      ok: true,
      data: { usdPerDay: 2, spentUsd: 0, remainingUsd: 2, periodEnd: tomorrow.toISOString() },
    });
    await clientFor(t.gw, guild).chat.completions.create({
      model: 'gpt-primary',
      messages: [{ role: 'user', content: 'spend a little' }],
    });
    let after: any;
    for (let i = 0; i < 50; i++) {
      after = await ask({ guildId: guild });
      if (after.data.spentUsd > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(after.data.spentUsd).toBeGreaterThan(0);
    expect(after.data.remainingUsd).toBeCloseTo(2 - after.data.spentUsd, 6);
  });

  it('refuses a bad guild id with BAD_REQUEST naming the field', async () => {
    const r = await ask({ guildId: 'no spaces allowed' });
    expect(r).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(JSON.stringify(r)).toContain('guildId');
  });
});
