import type { AddressInfo } from 'node:net';
import { Subjects } from '@dirigent/contracts';
import { snowflake, uid } from '@dirigent/testing';
import { Harness } from './harness';

const TOKEN = `decide-${uid('tok')}-0123456789`;

/**
 * The control page's proposal decisions: the actor is the admin its token stands for
 * (`DIRIGENT_CONTROL_ACTOR_USER_ID`), never what the browser sends. A stand-in router
 * answers `dirigent.admin.steward.decide` and records what the page asked.
 */
describe('control page: decide a proposal as the session’s admin', () => {
  const admin = snowflake();
  const asked: Record<string, unknown>[] = [];
  const harnesses: Harness[] = [];

  const start = async (env: Record<string, string>) => {
    const h = await Harness.start({ DIRIGENT_CONTROL_TOKEN: TOKEN, ...env });
    harnesses.push(h);
    const sub = h.messaging.client.nc.subscribe(Subjects.admin.stewardDecide, {
      callback: (_e, m) => {
        const data = m.json<Record<string, unknown>>();
        asked.push(data);
        m.respond(JSON.stringify({ ok: true, data: { proposalId: data.proposalId } }));
      },
    });
    await h.messaging.client.nc.flush();
    const { port } = h.app!.getHttpServer().address() as AddressInfo;
    const decide = (proposalId: string, body: unknown, token: string | null = TOKEN) =>
      fetch(`http://127.0.0.1:${port}/dirigent/api/proposals/${proposalId}/decide`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      });
    const stop = async () => {
      sub.unsubscribe();
      harnesses.splice(harnesses.indexOf(h), 1);
      await h.close();
    };
    return { decide, stop };
  };

  afterAll(async () => {
    for (const h of harnesses) await h.close();
  });

  it('names the configured admin, whatever actor the request body claims', async () => {
    const page = await start({ DIRIGENT_CONTROL_ACTOR_USER_ID: admin });
    try {
      expect((await page.decide('p-1', { approve: true }, null)).status).toBe(401);
      expect(asked).toEqual([]);

      const forged = snowflake();
      const res = await page.decide('p-1', { approve: true, actorUserId: forged });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true, data: { proposalId: 'p-1' } });
      expect(asked).toEqual([{ proposalId: 'p-1', approve: true, actorUserId: admin }]);

      const bad = await page.decide('p-1', { approve: 'yes' });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { details: unknown } }).error.details).toEqual([
        { field: 'approve', messages: ['approve must be true or false'] },
      ]);
      expect(asked).toHaveLength(1);
    } finally {
      await page.stop();
    }
  });

  it('decides for no one when no admin is configured', async () => {
    asked.length = 0;
    const page = await start({});
    try {
      const res = await page.decide('p-2', { approve: false, actorUserId: snowflake() });
      expect(res.status).toBe(403);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('FORBIDDEN');
      expect(body.error.message).toContain('DIRIGENT_CONTROL_ACTOR_USER_ID');
      expect(asked).toEqual([]);
    } finally {
      await page.stop();
    }
  });
});
