import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subjects } from '@dirigent/contracts';
import { CANONICAL_DISPOSITIONS } from '@dirigent/router-domain';
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
import type { Messaging } from '@dirigent/messaging';
import { FakeUpstream } from '../../llm-gateway/test/fake-upstreams';
import { startGateway, type RunningGateway } from '../../llm-gateway/test/harness';
import { FakeDiscord } from './fake-discord';
import { gatewayConfig } from './harness';

const MAIN = 'dist/services/router/main.js';

/**
 * The built router as a child process: a self-follow-up scheduled before a SIGKILL fires
 * once after the restart (`npm run build` first).
 */
describe('router: a self-follow-up survives SIGKILL', () => {
  let upstream: FakeUpstream;
  let gateway: RunningGateway;
  let messaging: Messaging;
  let discord: FakeDiscord;
  let child: Spawned | undefined;
  const events: { subject: string; data: any }[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'router-e2e-'));
  writeFileSync(
    join(dir, 'router.yaml'),
    'agents:\n  - { id: dit, name: Dit }\nspeculative: { enabled: false }\nfollowups: { enabled: true, midThoughtMs: 0 }\n',
  );

  const start = async () => {
    child = await spawnService(MAIN, 'ROUTER_PORT', {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      LOG_LEVEL: 'warn',
      DIRIGENT_ROUTER_CONFIG: join(dir, 'router.yaml'),
      DIRIGENT_WORKSPACE: dir,
    });
  };

  beforeAll(async () => {
    upstream = await FakeUpstream.start('openai');
    upstream.behave = () => ({ kind: 'ok', text: 'first thought' });
    gateway = await startGateway(gatewayConfig(upstream));
    messaging = await testMessaging('router-e2e');
    discord = new FakeDiscord(messaging);
    await discord.start();
    messaging.client.nc.subscribe(Subjects.router.evtAll, {
      callback: (_e, m) => {
        events.push({ subject: m.subject, data: m.json<any>().data });
      },
    });
    await start();
  });

  afterAll(async () => {
    await child?.kill('SIGKILL');
    await discord?.stop();
    await gateway?.close();
    await upstream?.close();
    if (messaging) await closeMessaging(messaging);
  });

  it('fires after the restart, once', async () => {
    for (const d of CANONICAL_DISPOSITIONS) {
      const r = await messaging.request<any>(Subjects.admin.dispositionUpsert, {
        id: d.id,
        weight: d.id === 'quick-react' ? 1 : 0,
        ...(d.id === 'quick-react'
          ? { selfFollowupHint: { probability: 1, bias: 'go-deeper', windowMs: [4000, 4000] } }
          : {}),
      });
      expect(r.ok).toBe(true);
    }
    const guild = snowflake();
    const channel = snowflake();
    await discord.human(guild, channel, 'dit, quick question');
    const scheduled = await waitFor(
      () =>
        events.find(
          (e) => e.subject.endsWith(`${channel}.followup`) && e.data.status === 'scheduled',
        ),
      15_000,
    );
    await child!.kill('SIGKILL');
    upstream.behave = () => ({ kind: 'ok', text: 'the deeper take' });
    await start();
    const fired = await waitFor(
      () =>
        events.find((e) => e.subject.endsWith(`${channel}.followup`) && e.data.status === 'fired'),
      20_000,
    );
    expect(fired.data.followupId).toBe(scheduled.data.followupId);
    const decision = await waitFor(
      () =>
        events.find(
          (e) => e.subject.endsWith(`${channel}.decision`) && e.data.trigger === 'self-followup',
        ),
      10_000,
    );
    expect(decision.data.followupId).toBe(scheduled.data.followupId);
    // The timer armed before the SIGKILL still names the decision that armed it.
    expect(decision.data.lineage).toMatchObject({
      job: 'self-followup',
      trigger: 'timer',
      parentId: scheduled.data.parentDecisionId,
    });
    await waitFor(
      () => discord.sent(channel).some((c) => c.data.content === 'the deeper take'),
      10_000,
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect(
      events.filter((e) => e.subject.endsWith(`${channel}.followup`) && e.data.status === 'fired'),
    ).toHaveLength(1);
  });
});
