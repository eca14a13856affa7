import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { INestApplication } from '@nestjs/common';
import {
  natsInboxPrefix,
  natsPasswordVariable,
  Buckets,
  Durables,
  NatsServices,
  ServiceNatsGrants,
  serviceUsersConfig,
  StreamSpecs,
  Subjects,
  subject,
  type NatsService,
} from '@dirigent/contracts';
import { Messaging, NatsClient, ensureStream } from '@dirigent/messaging';
import { startServiceApp, type BaseConfig, type ServiceDefinition } from '@dirigent/service-kit';
import { snowflake, testDatabaseUrl, uid, waitFor } from '@dirigent/testing';
import { startPrivateNats, type PrivateNats } from '../../libs/testing/src/private-services';
import { masterAccountsConfig, SERVICE_USERS_FILE } from '../../services/relay/nats-config';
import { MemoryService } from '../../services/memory/memory.module';
import { RouterService } from '../../services/router/router.module';
import { TurnCoordinatorService } from '../../services/turn-coordinator/turn-coordinator.module';
import { LlmGatewayService } from '../../services/llm-gateway/llm-gateway.module';
import { DiscordIngestService } from '../../services/discord-ingest/discord-ingest.module';
import { DiscordIngestRunner } from '../../services/discord-ingest/adapters/discord-ingest.runner';
import { FakeDiscord } from '@dirigent/discord-fake';
import { FakeUpstream } from '../../services/llm-gateway/test/fake-upstreams';
import { gatewayConfig } from '../../services/router/test/harness';

/**
 * The per-service NATS users of deploy/k8s against a real nats-server: the master's
 * `auth.conf` as `accounts.js --service-users` writes it, with the rendered users beside it.
 * Each service is refused what is not on its lists, does what is, and the router and memory
 * boot as their own users without a single permissions violation.
 */
const password = (s: NatsService) => `pw-${s}-${'x'.repeat(16)}`;

describe('deploy: every service is its own NATS user with allow-lists', () => {
  let nats: PrivateNats;
  const conns = new Map<NatsService, NatsConnection>();
  /** What the server refused each connection (its `-ERR` reports). */
  const refused = new Map<NatsService, string[]>();

  const as = async (service: NatsService): Promise<NatsConnection> => {
    const known = conns.get(service);
    if (known) return known;
    const nc = await connect({
      servers: nats.url,
      user: service,
      pass: password(service),
      inboxPrefix: natsInboxPrefix(service),
    });
    const errors: string[] = [];
    refused.set(service, errors);
    void (async () => {
      for await (const s of nc.status()) if (s.type === 'error') errors.push(String(s.error));
    })();
    conns.set(service, nc);
    return nc;
  };

  /** Publishes `subj` as `service` and waits for the server's verdict (a flush round trip). */
  const publishAs = async (service: NatsService, subj: string): Promise<boolean> => {
    const nc = await as(service);
    const before = refused.get(service)!.length;
    nc.publish(subj, '{}');
    // The server answers a refused publish before the flush's PONG; its report reaches the
    // status listener by the next turn of the event loop.
    await nc.flush();
    await new Promise((r) => setImmediate(r));
    return !refused
      .get(service)!
      .slice(before)
      .some((e) => e.includes(subj));
  };

  const serverLog = () => readFileSync(join(nats.dir, 'nats.log'), 'utf8');
  const violations = (user: string, since = 0) =>
    serverLog()
      .slice(since)
      .split('\n')
      .filter((l) => /Violation/.test(l) && l.includes(`"${user}"`));

  beforeAll(async () => {
    nats = await startPrivateNats(15_000, {
      files: {
        'nats.conf': 'include ./auth.conf\n',
        'auth.conf': masterAccountsConfig({
          relays: [{ instance: 'relay-a', password: 'relay-password' }],
          serviceUsers: true,
          leafListen: '127.0.0.1:-1',
        }),
        [SERVICE_USERS_FILE]: serviceUsersConfig(),
      },
      env: Object.fromEntries(NatsServices.map((s) => [natsPasswordVariable(s), password(s)])),
      probe: { user: 'memory', pass: password('memory'), inboxPrefix: natsInboxPrefix('memory') },
    });
  });

  afterAll(async () => {
    for (const nc of conns.values()) await nc.close();
    await nats?.stop();
  });

  it('refuses a client without credentials and a wrong password', async () => {
    await expect(connect({ servers: nats.url, reconnect: false })).rejects.toThrow(
      /Authorization/i,
    );
    await expect(
      connect({ servers: nats.url, user: 'router', pass: 'guess', reconnect: false }),
    ).rejects.toThrow(/Authorization/i);
  });

  const g = snowflake();
  const c = snowflake();
  it.each<[NatsService, string, string]>([
    ['memory', subject.discordEvent(g, c, 'message.created'), 'forge a Discord event'],
    ['memory', Subjects.discord.cmdSendMessage, 'post to Discord'],
    ['memory', Subjects.discord.rpcPinMessage, 'pin a message'],
    ['memory', Subjects.admin.stewardDecide, 'decide a proposal'],
    ['discord-ingest', Subjects.admin.stewardDecide, 'decide a proposal'],
    ['discord-ingest', Subjects.admin.personaUpsert, 'edit a persona'],
    ['discord-ingest', Subjects.admin.channelSetMode, 'set a mode through the admin door'],
    ['discord-ingest', Subjects.admin.identityList, 'read the identity registry'],
    ['discord-ingest', Subjects.router.skillInvoke, 'invoke a skill'],
    ['discord-ingest', Subjects.discord.cmdSendMessage, 'send on the bot’s behalf'],
    ['router', subject.discordEvent(g, c, 'reaction.added'), 'forge a moderator’s reaction'],
    ['router', Subjects.discord.cmdDeleteMessage, 'delete messages'],
    ['llm-gateway', Subjects.discord.cmdSendMessage, 'post to Discord'],
    ['llm-gateway', Subjects.router.skillInvoke, 'invoke a skill'],
    ['llm-gateway', `$JS.API.STREAM.DELETE.${StreamSpecs.eventStore.name}`, 'delete a stream'],
    ['turn-coordinator', Subjects.router.skillInvoke, 'invoke a skill'],
    ['turn-coordinator', subject.discordEvent(g, c, 'reaction.added'), 'forge a reaction'],
    ['turn-coordinator', `$JS.API.STREAM.PURGE.${StreamSpecs.eventStore.name}`, 'purge a stream'],
    ['memory-jobs', 'dirigent.internal.memory.mem-a.search', 'forward a search'],
    ['memory-jobs', `$KV.${Buckets.memoryLeases}.p8.0`, 'take a guild partition'],
    ['memory-jobs', Subjects.discord.cmdSendMessage, 'post to Discord'],
  ])('%s may not publish %s (%s)', async (service, subj) => {
    expect(await publishAs(service, subj)).toBe(false);
  });

  it.each<[NatsService, string]>([
    ['memory', Subjects.admin.stewardDecide],
    ['discord-ingest', Subjects.router.skillInvoke],
    ['llm-gateway', Subjects.discord.cmdAll],
    ['memory', '_INBOX.>'],
    ['memory', `${natsInboxPrefix('turn-coordinator')}.>`],
    ['memory-jobs', Subjects.memory.search],
    ['memory-jobs', Subjects.memory.forget],
  ])('%s may not listen on %s', async (service, subj) => {
    const nc = await as(service);
    const before = refused.get(service)!.length;
    const sub = nc.subscribe(subj);
    await nc.flush();
    await waitFor(async () => refused.get(service)!.length > before, 5_000, 10, 'the refusal');
    expect(refused.get(service)!.slice(before).join(' ')).toMatch(/Subscription/i);
    sub.unsubscribe();
  });

  it('lets the control page’s service and the router through the admin doors they use', async () => {
    expect(await publishAs('turn-coordinator', Subjects.admin.stewardDecide)).toBe(true);
    expect(await publishAs('turn-coordinator', Subjects.admin.personaRollback)).toBe(true);
    expect(await publishAs('router', Subjects.admin.channelGet)).toBe(true);
  });

  it('lets the ingest through the member doors of its slash commands only', async () => {
    expect(await publishAs('discord-ingest', Subjects.turn.slash.setMode)).toBe(true);
    expect(await publishAs('discord-ingest', Subjects.turn.agentNames)).toBe(true);
  });

  it('carries a request from its caller to its server and the reply back', async () => {
    const memory = await as('memory');
    const sub = memory.subscribe(Subjects.memory.search, {
      callback: (_e, m) => {
        m.respond(JSON.stringify({ ok: true, data: { hits: [] } }));
      },
    });
    await memory.flush();
    const router = await as('router');
    const reply = await router.request(Subjects.memory.search, '{}', { timeout: 5_000 });
    expect(reply.json()).toEqual({ ok: true, data: { hits: [] } });
    sub.unsubscribe();
  });

  it('is enough for JetStream: the ingest writes an event, memory fetches and acks it', async () => {
    const ingest = await as('discord-ingest');
    await ensureStream(await jetstreamManager(ingest), StreamSpecs.discordEvents);
    const subj = subject.discordEvent(g, c, 'message.created');
    const ack = await jetstream(ingest).publish(subj, JSON.stringify({ id: uid('e') }));
    expect(ack.stream).toBe(StreamSpecs.discordEvents.name);

    const memory = await as('memory');
    const durable = `memory-authz-${uid('d')}`;
    await (
      await jetstreamManager(memory)
    ).consumers.add(StreamSpecs.discordEvents.name, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      filter_subject: subj,
    });
    const consumer = await jetstream(memory).consumers.get(StreamSpecs.discordEvents.name, durable);
    const batch = await consumer.fetch({ max_messages: 1, expires: 5_000 });
    const got: string[] = [];
    for await (const m of batch) {
      got.push(m.subject);
      await m.ackAck();
    }
    expect(got).toEqual([subj]);
    expect(violations('memory').filter((l) => l.includes('$JS'))).toEqual([]);
  });

  it('logs each refusal with its user (what the boot checks below look for)', () => {
    expect(violations('memory').join('\n')).toContain(Subjects.discord.cmdSendMessage);
    expect(violations('discord-ingest').join('\n')).toContain(Subjects.admin.stewardDecide);
  });

  it('grants each service the streams it provisions at start', () => {
    const defs: [NatsService, { streams: { name: string }[] }][] = [
      ['discord-ingest', DiscordIngestService],
      ['turn-coordinator', TurnCoordinatorService],
      ['router', RouterService],
      ['memory', MemoryService],
      ['memory-jobs', MemoryService],
      ['llm-gateway', LlmGatewayService],
    ];
    for (const [service, def] of defs) {
      const missing = def.streams
        .map((s) => s.name)
        .filter((n) => !ServiceNatsGrants[service].streams.includes(n as never));
      expect({ service, missing }).toEqual({ service, missing: [] });
    }
  });

  describe('real services boot as their own users', () => {
    const env = (service: NatsService, extra: Record<string, string>) => ({
      NATS_URL: nats.url,
      NATS_USER: service,
      NATS_PASSWORD: password(service),
      DATABASE_URL: testDatabaseUrl(),
      LOG_LEVEL: 'silent',
      ...extra,
    });

    /** Started, its consumers up, and the server has seen every subscription it made. */
    const settled = async (
      app: INestApplication,
      service: NatsService,
      since: number,
      durables: string[],
    ) => {
      const client = app.get(NatsClient);
      for (const [stream, durable] of durables.map((d) => d.split('/'))) {
        await waitFor(
          () =>
            client.jsm.consumers.info(stream, durable).then(
              () => true,
              () => false,
            ),
          30_000,
          50,
          `${service}'s consumer ${durable}`,
        );
      }
      await client.nc.flush();
      expect(await client.ping()).toBeGreaterThanOrEqual(0);
      expect(violations(service, since)).toEqual([]);
    };

    /** Memory's consumers, which a replica that stores (not a `queries` one) starts. */
    const memoryDurables = [
      `${StreamSpecs.discordEvents.name}/memory-discord-evt`,
      `${StreamSpecs.routerEvents.name}/memory-router-decisions`,
    ];

    /** A memory search as the router asks it; the reply's body. */
    const search = async (guildId: string, query: string) => {
      const reply = await (
        await as('router')
      ).request(Subjects.memory.search, JSON.stringify({ guildId, query, k: 3 }), {
        timeout: 10_000,
      });
      return reply.json<{ ok: boolean; data?: { hits: { messageId?: string }[] } }>();
    };

    it('memory', async () => {
      const since = serverLog().length;
      const { app } = await startServiceApp(
        MemoryService,
        env('memory', { MEMORY_PORT: '0', DIRIGENT_MEMORY_EMBEDDER: 'local' }),
      );
      try {
        await settled(app, 'memory', since, memoryDurables);
        expect((await search(g, 'hello')).ok).toBe(true);
        expect(violations('memory', since)).toEqual([]);
      } finally {
        await app.close();
      }
    });

    it('memory in its two roles, each as its own user', async () => {
      const since = serverLog().length;
      const role = (service: NatsService, r: string) =>
        startServiceApp(
          MemoryService,
          env(service, {
            MEMORY_PORT: '0',
            DIRIGENT_MEMORY_EMBEDDER: 'local',
            DIRIGENT_MEMORY_ROLE: r,
          }),
        );
      const { app: jobs } = await role('memory-jobs', 'jobs');
      const { app: queries } = await role('memory', 'queries');
      try {
        await settled(jobs, 'memory-jobs', since, memoryDurables);
        expect((await search(g, 'hello')).ok).toBe(true);
        // A message the ingest publishes is stored by the jobs replica (its batch, its
        // timers) and found through the queries replica, neither refused anything.
        const ingest = new Messaging(
          await NatsClient.connect({
            url: nats.url,
            name: 'discord-ingest',
            user: 'discord-ingest',
            pass: password('discord-ingest'),
          }),
          'discord-ingest',
          { info: () => undefined, warn: () => undefined, error: () => undefined },
        );
        const guildId = snowflake();
        const channelId = snowflake();
        const messageId = snowflake();
        try {
          await ingest.publishEvent(
            subject.discordEvent(guildId, channelId, 'message.created'),
            'message.created',
            {
              guildId,
              channelId,
              messageId,
              authorId: snowflake(),
              authorIsBot: false,
              content: 'the lighthouse keeper painted the door teal',
              createdAt: new Date().toISOString(),
            },
          );
        } finally {
          await ingest.close();
          await ingest.client.close();
        }
        await waitFor(
          async () =>
            !!(await search(guildId, 'lighthouse door teal')).data?.hits.some(
              (h) => h.messageId === messageId,
            ),
          30_000,
          100,
          'the message to be stored and found',
        );
        expect(violations('memory-jobs', since)).toEqual([]);
        expect(violations('memory', since)).toEqual([]);
      } finally {
        await queries.close();
        await jobs.close();
      }
    });

    it('router', async () => {
      const since = serverLog().length;
      const dir = join(nats.dir, 'router');
      mkdirSync(dir);
      writeFileSync(
        join(dir, 'router.yaml'),
        'agents:\n  - id: dit\n    name: Dit\nspeculative: { enabled: false }\nfollowups: { enabled: false }\n',
      );
      const { app } = await startServiceApp(
        RouterService,
        env('router', {
          ROUTER_PORT: '0',
          DIRIGENT_ROUTER_CONFIG: join(dir, 'router.yaml'),
          DIRIGENT_WORKSPACE: dir,
        }),
      );
      try {
        await settled(app, 'router', since, [
          `${StreamSpecs.discordEvents.name}/router-discord-evt`,
          `${StreamSpecs.turnGranted.name}/router-turn-granted`,
        ]);
        const reply = await (
          await as('turn-coordinator')
        ).request(Subjects.admin.personaList, '{}', { timeout: 10_000 });
        expect(reply.json<{ ok: boolean }>().ok).toBe(true);
        expect(violations('router', since)).toEqual([]);
      } finally {
        await app.close();
      }
    });

    it('turn-coordinator (with the control page)', async () => {
      const since = serverLog().length;
      const dir = join(nats.dir, 'coordinator');
      mkdirSync(dir);
      const { app } = await startServiceApp(
        TurnCoordinatorService,
        env('turn-coordinator', { TURN_COORDINATOR_PORT: '0', DIRIGENT_WORKSPACE: dir }),
      );
      try {
        await settled(app, 'turn-coordinator', since, [
          `${StreamSpecs.discordEvents.name}/${Durables.coordinatorDiscordEvents}`,
          `${StreamSpecs.turnComplete.name}/${Durables.coordinatorTurnComplete}`,
        ]);
        const reply = await (
          await as('discord-ingest')
        ).request(Subjects.turn.agentNames, '{}', { timeout: 10_000 });
        expect(reply.json<{ ok: boolean }>().ok).toBe(true);
        expect(violations('turn-coordinator', since)).toEqual([]);
      } finally {
        await app.close();
      }
    });

    it('llm-gateway', async () => {
      const since = serverLog().length;
      const path = join(nats.dir, 'llm.json');
      writeFileSync(
        path,
        JSON.stringify({
          providers: [
            { id: 'p', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'TEST_KEY' },
          ],
          models: [
            {
              id: 'm',
              provider: 'p',
              upstream: 'm-1',
              inputUsdPerMTok: 1,
              outputUsdPerMTok: 2,
              contextWindow: 8000,
            },
          ],
          purposes: { agent: { model: 'm' } },
          budgets: { defaultGuildUsdPerDay: 1 },
        }),
      );
      const { app } = await startServiceApp(
        LlmGatewayService,
        env('llm-gateway', { LLM_GATEWAY_PORT: '0', DIRIGENT_LLM_CONFIG: path, TEST_KEY: 'k' }),
      );
      try {
        await settled(app, 'llm-gateway', since, [
          `${StreamSpecs.llmUsage.name}/${Durables.gatewayLedger}`,
        ]);
        const reply = await (
          await as('router')
        ).request(Subjects.llm.budgetGet, JSON.stringify({ guildId: g }), { timeout: 10_000 });
        expect(reply.json<{ ok: boolean }>().ok).toBe(true);
        expect(violations('llm-gateway', since)).toEqual([]);
      } finally {
        await app.close();
      }
    });

    it('discord-ingest (against the local Discord)', async () => {
      const since = serverLog().length;
      const token = uid('token');
      const discord = await FakeDiscord.start({ token });
      discord.createGuild({ id: snowflake(), name: 'authz', ownerId: snowflake() });
      const { app } = await startServiceApp(
        DiscordIngestService,
        env('discord-ingest', {
          DISCORD_INGEST_PORT: '0',
          DISCORD_TOKEN: token,
          DISCORD_API_URL: discord.apiUrl,
        }),
      );
      try {
        await app.get(DiscordIngestRunner).ready;
        await settled(app, 'discord-ingest', since, []);
        const reply = await (
          await as('router')
        ).request(Subjects.discord.querySelf, '{}', { timeout: 10_000 });
        expect(reply.json<{ ok: boolean }>().ok).toBe(true);
        expect(violations('discord-ingest', since)).toEqual([]);
      } finally {
        await app.close();
        await discord.stop();
      }
    });

    /**
     * All five together, each as its user, and a member asking Dit something in a channel:
     * the events, decisions, model calls, usage ledger, memory and the bot's answer cross
     * every service's lists at run time, not only at start.
     */
    it('all five together answer a member without a refusal', async () => {
      const since = serverLog().length;
      const upstream = await FakeUpstream.start('openai');
      upstream.behave = () => ({ kind: 'ok', text: 'forty-two, as far as I can tell' });
      const token = uid('token');
      const discord = await FakeDiscord.start({ token });
      const guild = discord.createGuild({
        id: snowflake(),
        name: 'together',
        ownerId: snowflake(),
      });
      const general = discord.createChannel(guild.id, { name: 'general' });
      const human = discord.createUser({ id: snowflake(), username: 'alice' });
      discord.addMember(guild.id, human.id);
      const dir = join(nats.dir, 'together');
      mkdirSync(dir);
      writeFileSync(join(dir, 'llm.json'), JSON.stringify(gatewayConfig(upstream)));
      writeFileSync(
        join(dir, 'router.yaml'),
        'agents:\n  - { id: dit, name: Dit }\nspeculative: { enabled: false }\nfollowups: { enabled: false }\n',
      );
      const apps: INestApplication[] = [];
      const boot = async <C extends BaseConfig>(
        def: ServiceDefinition<C>,
        service: NatsService,
        extra: Record<string, string>,
      ) => apps.push((await startServiceApp(def, env(service, extra))).app);
      try {
        await boot(LlmGatewayService, 'llm-gateway', {
          LLM_GATEWAY_PORT: '0',
          DIRIGENT_LLM_CONFIG: join(dir, 'llm.json'),
          TEST_OPENAI_KEY: 'sk-test-openai',
        });
        await boot(MemoryService, 'memory', {
          MEMORY_PORT: '0',
          DIRIGENT_MEMORY_EMBEDDER: 'local',
        });
        await boot(TurnCoordinatorService, 'turn-coordinator', {
          TURN_COORDINATOR_PORT: '0',
          DIRIGENT_WORKSPACE: dir,
        });
        await boot(RouterService, 'router', {
          ROUTER_PORT: '0',
          DIRIGENT_ROUTER_CONFIG: join(dir, 'router.yaml'),
          DIRIGENT_WORKSPACE: dir,
        });
        await boot(DiscordIngestService, 'discord-ingest', {
          DISCORD_INGEST_PORT: '0',
          DISCORD_TOKEN: token,
          DISCORD_API_URL: discord.apiUrl,
        });
        await apps[apps.length - 1].get(DiscordIngestRunner).ready;

        discord.postMessage({
          channelId: general.id,
          authorId: human.id,
          content: 'Dit, what is the answer to everything?',
        });
        const answer = await waitFor(
          () =>
            discord
              .channelMessages(general.id)
              .find((m) => m.authorId === discord.bot.id && m.content.includes('forty-two')),
          60_000,
          100,
          'Dit’s answer in #general',
        );
        expect(answer.content).toContain('forty-two');
        // The model call's usage reached the ledger (the gateway's publish and consumer).
        const ledger = apps[0].get(NatsClient);
        await waitFor(
          async () =>
            (await ledger.jsm.consumers.info(StreamSpecs.llmUsage.name, Durables.gatewayLedger))
              .delivered.stream_seq > 0,
          30_000,
          50,
          'the usage ledger',
        );
        for (const app of apps) await app.get(NatsClient).nc.flush();
        const refused = serverLog()
          .slice(since)
          .split('\n')
          .filter((l) => /Violation/.test(l));
        expect(refused).toEqual([]);
      } finally {
        for (const app of apps.reverse()) await app.close();
        await discord.stop();
        await upstream.close();
      }
    });
  });
});
