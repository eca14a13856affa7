import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Subjects, type Reply } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { RelayClient, type GrantedEvent } from '@dirigent/relay-client';
import { startServiceApp } from '@dirigent/service-kit';
import {
  closeMessaging,
  snowflake,
  testDatabaseUrl,
  testMessaging,
  testNatsUrl,
  uid,
} from '@dirigent/testing';
import { TurnCoordinatorService } from '../turn-coordinator.module';
import { FakeIngest } from './fake-ingest';

export interface Agent {
  agentId: string;
  userId: string;
}

export function makeAgents(n: number, prefix = 'ag'): Agent[] {
  return Array.from({ length: n }, (_, i) => ({
    agentId: uid(`${prefix}${i}`).replace(/[^A-Za-z0-9_-]/g, '_'),
    userId: snowflake(),
  }));
}

/** The environment a coordinator under test runs with. */
export function coordinatorEnv(moderatorId: string, extra: Record<string, string> = {}) {
  return {
    ...process.env,
    NATS_URL: testNatsUrl(),
    DATABASE_URL: testDatabaseUrl(),
    TURN_COORDINATOR_PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    DIRIGENT_MODERATOR_USER_ID: moderatorId,
    DIRIGENT_DELIVERY_TIMEOUT_MS: '30000',
    // The fake ingest stays silent for channels it does not know: do not wait 5 s for it.
    DIRIGENT_DISCORD_RPC_TIMEOUT_MS: '1000',
    ...extra,
  };
}

/** A coordinator in-process, a fake ingest and a relay client sharing one test connection. */
export class Harness {
  app?: INestApplication;
  readonly guildId = snowflake();
  readonly workspace = mkdtempSync(join(tmpdir(), 'dirigent-tc-'));
  private readonly cleanups: (() => Promise<void>)[] = [];

  private constructor(
    readonly messaging: Messaging,
    readonly fake: FakeIngest,
    readonly relay: RelayClient,
  ) {}

  static async start(extraEnv: Record<string, string> = {}, startApp = true): Promise<Harness> {
    const messaging = await testMessaging(uid('tc-test'));
    const fake = new FakeIngest(messaging, snowflake());
    await fake.start();
    const relay = await RelayClient.using(messaging.client.nc, { name: 'tc-test' });
    const h = new Harness(messaging, fake, relay);
    fake.guilds.add(h.guildId);
    if (startApp) {
      const env = coordinatorEnv(fake.moderatorId, {
        DIRIGENT_WORKSPACE: h.workspace,
        ...extraEnv,
      });
      h.app = (await startServiceApp(TurnCoordinatorService, env)).app;
    }
    return h;
  }

  async request<T>(subj: string, data: unknown, timeoutMs = 10_000): Promise<Reply<T>> {
    return this.messaging.request<T>(subj, data, timeoutMs);
  }

  async ok<T>(subj: string, data: unknown): Promise<T> {
    const reply = await this.request<T>(subj, data);
    if (!reply.ok) throw new Error(`${subj} failed: ${JSON.stringify(reply.error)}`);
    return reply.data;
  }

  /** Calls a channel-creating tool. */
  async create(tool: string, data: Record<string, unknown>): Promise<{ channelId: string }> {
    return this.ok<{ channelId: string }>(tool, data);
  }

  async register(agents: Agent[]): Promise<void> {
    for (const a of agents) {
      await this.ok(Subjects.admin.identityUpsert, {
        discordUserId: a.userId,
        agentId: a.agentId,
        agentName: a.agentId,
      });
    }
  }

  async channel(channelId: string): Promise<Record<string, any>> {
    return this.ok(Subjects.admin.channelGet, { channelId });
  }

  /**
   * Records every grant (of one channel, or of all) as stored in the stream, through a
   * durable relay consumer: a grant published twice would show up twice only if JetStream
   * had stored it twice.
   */
  async grants(channelId?: string): Promise<GrantedEvent[]> {
    const seen: GrantedEvent[] = [];
    const durable = uid('tc-grants').replace(/[^A-Za-z0-9_-]/g, '_');
    const sub = await this.relay.onGranted({
      durable,
      ...(channelId ? { channelId } : {}),
      handler: (g) => {
        seen.push(g);
      },
    });
    this.cleanups.push(async () => {
      await sub.stop();
      await this.relay.deleteDurable(durable);
    });
    return seen;
  }

  /**
   * Agent runtimes on the relay client: on a grant each checks its turn, posts its reply to
   * "Discord" (unless empty) and completes the turn. `reply` picks the text.
   */
  async runAgents(
    channelId: string | undefined,
    agents: Agent[],
    reply: (agent: Agent, grant: GrantedEvent) => string,
  ): Promise<void> {
    for (const agent of agents) {
      const durable = uid('tc-agent').replace(/[^A-Za-z0-9_-]/g, '_');
      const sub = await this.relay.onGranted({
        durable,
        ...(channelId ? { channelId } : {}),
        agentId: agent.agentId,
        handler: async (g) => {
          const channelId = g.channelId;
          const check = await this.relay.checkTurn({
            guildId: g.guildId,
            channelId,
            agentId: agent.agentId,
          });
          if (!check.allowed) return;
          const text = reply(agent, g);
          const runId = uid('run');
          const real = text.trim() !== '' && text !== 'NO_REPLY';
          // Alternate the two orders Discord and the runtime can race in.
          if (real && g.cycle % 2 === 0) {
            await this.fake.post(g.guildId, channelId, agent.userId, text, true);
          }
          await this.relay.completeTurn({
            guildId: g.guildId,
            channelId,
            agentId: agent.agentId,
            runId,
            text,
            turnId: g.turnId,
          });
          if (real && g.cycle % 2 === 1) {
            await this.fake.post(g.guildId, channelId, agent.userId, text, true);
          }
        },
      });
      this.cleanups.push(async () => {
        await sub.stop();
        await this.relay.deleteDurable(durable);
      });
    }
  }

  onCleanup(fn: () => Promise<void>): void {
    this.cleanups.push(fn);
  }

  async stopApp(): Promise<void> {
    await this.app?.close();
    this.app = undefined;
  }

  async close(): Promise<void> {
    for (const fn of this.cleanups.splice(0).reverse()) await fn().catch(() => undefined);
    await this.stopApp();
    await this.relay.close();
    await this.fake.stop();
    await closeMessaging(this.messaging);
  }
}
