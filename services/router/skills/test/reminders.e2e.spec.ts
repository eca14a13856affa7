import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subjects } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import {
  closeMessaging,
  snowflake,
  spawnService,
  testDatabaseUrl,
  testMessaging,
  testNatsUrl,
  waitFor,
  type Spawned,
} from '@dirigent/testing';
import { FakeDiscord } from '../../test/fake-discord';

const MAIN = 'dist/services/router/main.js';

/**
 * The built router as a child process (`npm run build` first), SIGKILLed with reminders
 * pending: a reminder set before the kill is posted after the restart, once, mentioning the
 * member who asked; one cancelled before the kill never is. List and cancel read the rows.
 */
describe('reminders survive a SIGKILL of the router', () => {
  let messaging: Messaging;
  let discord: FakeDiscord;
  let child: Spawned | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'router-reminders-'));
  writeFileSync(
    join(dir, 'router.yaml'),
    'agents:\n  - { id: dit, name: Dit }\nspeculative: { enabled: false }\nfollowups: { enabled: false }\n',
  );

  const start = async () => {
    child = await spawnService(
      MAIN,
      'ROUTER_PORT',
      {
        NATS_URL: testNatsUrl(),
        DATABASE_URL: testDatabaseUrl(),
        LOG_LEVEL: 'warn',
        DIRIGENT_ROUTER_CONFIG: join(dir, 'router.yaml'),
        DIRIGENT_WORKSPACE: dir,
        DIRIGENT_TIMEZONE: 'Europe/Lisbon',
      },
      90_000,
    );
  };
  const request = async (subject: string, data: unknown): Promise<any> =>
    messaging.request<any>(subject, data, 20_000);

  beforeAll(async () => {
    messaging = await testMessaging('router-reminders-e2e');
    discord = new FakeDiscord(messaging);
    await discord.start();
    await start();
  });

  afterAll(async () => {
    await child?.kill('SIGKILL');
    await discord?.stop();
    if (messaging) await closeMessaging(messaging);
  });

  it('posts a reminder set before the kill after the restart, once; a cancelled one never', async () => {
    const guildId = snowflake();
    const channelId = snowflake();
    const userId = snowflake();
    const remind = (args: Record<string, unknown>) =>
      request(Subjects.router.skillInvoke, {
        guildId,
        channelId,
        skillId: 'remind',
        tool: 'remind',
        args,
        actor: { userId },
      });
    const kept = await remind({ when: 'in 8 seconds', text: 'water the beds', target: 'me' });
    expect(kept).toMatchObject({
      ok: true,
      data: { status: 'done', result: { reminderId: expect.stringMatching(/^rem-/) } },
    });
    const dropped = await remind({ when: 'in 8 seconds to never mind', target: 'channel' });
    const { reminderId } = kept.data.result;
    const dueAt = Date.parse(kept.data.result.dueAt);

    const listed = await request(Subjects.router.remindersList, { guildId, userId });
    expect(listed.data.reminders.map((r: any) => r.reminderId).sort()).toEqual(
      [reminderId, dropped.data.result.reminderId].sort(),
    );
    expect(listed.data.reminders.find((r: any) => r.reminderId === reminderId)).toEqual(
      expect.objectContaining({ target: 'me', text: 'water the beds', status: 'scheduled' }),
    );
    const cancelled = await request(Subjects.router.reminderCancel, {
      reminderId: dropped.data.result.reminderId,
    });
    expect(cancelled).toMatchObject({ ok: true, data: { status: 'cancelled' } });
    expect(await request(Subjects.router.reminderCancel, { reminderId: 'rem-nope' })).toMatchObject(
      { ok: false, error: { code: 'BAD_REQUEST' } },
    );

    await child!.kill('SIGKILL');
    // Due while nobody runs: the restarted router finds the timer overdue.
    const wait = dueAt + 1000 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    expect(discord.sent(channelId)).toEqual([]);
    await start();

    const posted = await waitFor(() => discord.sent(channelId)[0], 60_000, 100, 'the reminder');
    expect(posted.data.content).toBe(`⏰ <@${userId}>, you asked me to remind you: water the beds`);
    const settled = await waitFor(
      async () => {
        const r = await request(Subjects.router.reminderCancel, { reminderId });
        return r.ok && r.data.status === 'fired' && r;
      },
      30_000,
      100,
      'the reminder settled',
    );
    expect(settled.data).toEqual({ reminderId, status: 'fired' });
    expect((await request(Subjects.router.remindersList, { guildId })).data.reminders).toEqual([]);
    expect(discord.sent(channelId)).toHaveLength(1);
  });
});
