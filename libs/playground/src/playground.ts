import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Subscription } from '@nats-io/nats-core';
import { Subjects, subject, type Reply, type RouterDecision } from '@dirigent/contracts';
import {
  ChannelReadModel,
  ControlData,
  KeyedCoalescer,
  renderTimelineSvg,
} from '@dirigent/control-web';
import { FakeDiscord, type FakeMessage } from '@dirigent/discord-fake';
import { EventStore } from '@dirigent/event-store';
import { Messaging, NatsClient } from '@dirigent/messaging';
import { ormConfig, turnCoordinatorEntities } from '@dirigent/persistence';
import { DemoAgent, type DemoAgentSpec } from './demo-agent';
import { decisionJson, latestDecisions, writeRouterConfig } from './dit';
import { messageJson } from './fake-guilds';
import { serveFakeGuilds } from './fake-guilds';
import { HttpError } from './http';
import { writeLlmConfig } from './llm-config';
import { PlaygroundRoutes } from './routes';
import { seedWorld } from './seed-world';

export interface PlaygroundOptions {
  natsUrl: string;
  /** Where the coordinator's read model is (channel states, timelines): its DATABASE_URL. */
  databaseUrl: string;
  /** Port of the playground page; 0 picks a free one. Default `PLAYGROUND_PORT` or 3000. */
  port?: number;
  /** Default 127.0.0.1: the page lets anyone on it act in the local Discord. */
  host?: string;
  /**
   * Fixed ids (default) give the same world on every start, so identities and channel
   * history in a kept NATS/Postgres stay valid; `unique` makes fresh ones (tests).
   */
  unique?: boolean;
  /** Pause before an agent posts its reply, so a person can watch turns pass. Default 700. */
  replyDelayMs?: number;
  /** The environment the services will get; decides which defaults the playground adds. */
  baseEnv?: NodeJS.ProcessEnv;
  /** Where the generated configuration files go (`<dataDir>/playground`); default a temp dir. */
  dataDir?: string;
  log?: (line: string) => void;
}

/**
 * The playground: a local Discord with a seeded guild (a human, the moderator bot, three
 * demo agents, a chat channel), a web page to act in it and watch Dirigent conduct, and
 * three demo agents joining through the relay client.
 *
 * @example
 * const pg = await startPlayground({ natsUrl, baseEnv: process.env });
 * const env = { ...process.env, ...pg.env };   // DISCORD_TOKEN, DISCORD_API_URL, ...
 * // ... start the services with env ...
 * await pg.startAgents();
 * console.log(`open ${pg.url}`);
 */
export class Playground {
  private server?: Server;
  private messaging?: Messaging;
  private readonly agents: DemoAgent[] = [];
  private readonly clients = new Set<ServerResponse>();
  private readonly subs: Subscription[] = [];
  private readonly live = new KeyedCoalescer((channelId) =>
    this.channelState(channelId).then((s) => this.send('channel', s)),
  );
  private orm?: MikroORM;
  private data?: ControlData;
  private port = 0;
  readonly env: Record<string, string>;
  readonly guildId: string;
  readonly chatChannelId: string;
  readonly humanId: string;
  readonly agentSpecs: DemoAgentSpec[];
  readonly dit: DemoAgentSpec;
  /** The router's orchestrator agent (answers when mentioned, takes no turns). */
  readonly molt: DemoAgentSpec;
  /** The control page's decision log, once known (shown on the playground page). */
  private controlUrl: string | null = null;

  private constructor(
    readonly discord: FakeDiscord,
    private readonly opts: PlaygroundOptions,
  ) {
    const world = seedWorld(discord, opts.unique ?? false);
    this.guildId = world.guildId;
    this.chatChannelId = world.chatChannelId;
    this.humanId = world.humanId;
    this.agentSpecs = world.agentSpecs;
    this.dit = world.dit;
    this.molt = world.molt;
    const base = opts.baseEnv ?? {};
    const dir = opts.dataDir
      ? resolve(opts.dataDir, 'playground')
      : mkdtempSync(join(tmpdir(), 'dirigent-playground-'));
    mkdirSync(dir, { recursive: true });
    this.env = {
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      DIRIGENT_MODERATOR_USER_ID: discord.bot.id,
      ...(base.DIRIGENT_LLM_CONFIG ? {} : { DIRIGENT_LLM_CONFIG: writeLlmConfig(dir, base) }),
      ...(base.DIRIGENT_ROUTER_CONFIG
        ? {}
        : { DIRIGENT_ROUTER_CONFIG: writeRouterConfig(this.dit, this.molt, dir) }),
      // Dit speaks through a webhook, whose message the coordinator cannot tie to Dit's
      // account: its turn ends at the delivery timeout, kept short here.
      ...(base.DIRIGENT_DELIVERY_TIMEOUT_MS ? {} : { DIRIGENT_DELIVERY_TIMEOUT_MS: '3000' }),
      ...(base.DIRIGENT_CONTROL_TOKEN
        ? {}
        : { DIRIGENT_CONTROL_TOKEN: `playground-${randomBytes(12).toString('hex')}` }),
    };
  }

  static async start(opts: PlaygroundOptions): Promise<Playground> {
    const discord = await FakeDiscord.start({
      token: `playground-${randomBytes(16).toString('hex')}`,
    });
    const pg = new Playground(discord, opts);
    await pg.listen();
    return pg;
  }

  /** Every agent in the guild: the demo agents, Dit and Molt. */
  private get everyone(): DemoAgentSpec[] {
    return [...this.agentSpecs, this.dit, this.molt];
  }

  get url(): string {
    return `http://${this.opts.host ?? '127.0.0.1'}:${this.port}/playground`;
  }

  private log(line: string): void {
    (this.opts.log ?? ((l: string) => console.log(JSON.stringify({ msg: l }))))(line);
  }

  private async listen(): Promise<void> {
    const routes = new PlaygroundRoutes({
      discord: this.discord,
      guildId: this.guildId,
      chatChannelId: this.chatChannelId,
      humanId: this.humanId,
      agentSpecs: this.agentSpecs,
      dit: this.dit,
      molt: this.molt,
      ready: () => !!this.data,
      state: () => this.state(),
      follow: (req, res) => {
        this.clients.add(res);
        req.on('close', () => this.clients.delete(res));
      },
      call: (subj, data) => this.call(subj, data),
      setMode: (channelId, mode) => this.setMode(channelId, mode),
    });
    const server = createServer((req, res) => void routes.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(
        this.opts.port ?? Number(this.opts.baseEnv?.PLAYGROUND_PORT ?? 3000),
        this.opts.host ?? '127.0.0.1',
        () => resolve(),
      );
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    this.discord.on('messageCreated', (m: FakeMessage) =>
      this.send('message', messageJson(this.discord, m)),
    );
    // A channel made by the bot (the steward's mod channel, an approved one): the page reloads.
    this.discord.on('channelCreated', (c: { id: string; guildId: string }) => {
      if (c.guildId === this.guildId) this.send('channels-changed', { channelId: c.id });
    });
    // Reactions, a pin, a thread started from a message: the page redraws the message.
    for (const event of ['reactionChanged', 'messageUpdated'])
      this.discord.on(event, (m: FakeMessage) =>
        this.send('message-updated', messageJson(this.discord, m)),
      );
    this.discord.on('messageDeleted', (m: FakeMessage) =>
      this.send('message-deleted', { channelId: m.channelId, id: m.id }),
    );
  }

  /**
   * Once the services are up: registers the demo agents, puts the seeded channel in chat
   * mode, answers the guild query for the control page, and starts the agents.
   */
  async startAgents(opts: { controlUrl?: string } = {}): Promise<void> {
    this.controlUrl = opts.controlUrl ?? null;
    const client = await NatsClient.connect({ url: this.opts.natsUrl, name: 'playground' });
    const quiet = () => undefined;
    this.messaging = new Messaging(client, 'playground', {
      info: quiet,
      warn: quiet,
      error: quiet,
    });
    this.orm = await MikroORM.init(ormConfig(this.opts.databaseUrl, turnCoordinatorEntities));
    const reads = new ChannelReadModel(this.orm.em, new EventStore(this.messaging));
    this.data = new ControlData(this.messaging, reads);
    serveFakeGuilds(this.messaging, this.discord);
    // The router registers Dit too when it starts; here it is sure to be there before set-mode.
    for (const a of [...this.agentSpecs, this.dit]) {
      await this.call(Subjects.admin.identityUpsert, {
        discordUserId: a.userId,
        agentId: a.agentId,
        agentName: a.name,
      });
    }
    await this.retry(() => this.seedChatChannel(), 8).catch((e: Error) =>
      this.log(`playground: the chat channel has no speakers yet (${e.message})`),
    );
    const nc = client.nc;
    const prefix = subject.aggregate('channel', '');
    this.subs.push(
      nc.subscribe(subject.aggregate('channel', '>'), {
        callback: (_e, msg) => this.later(msg.subject.slice(prefix.length)),
      }),
      nc.subscribe(subject.routerEvent(this.guildId, '*', 'decision'), {
        callback: (_e, msg) =>
          this.send('decision', decisionJson(msg.json<{ data: RouterDecision }>().data)),
      }),
    );
    for (const spec of this.agentSpecs) {
      const agent = new DemoAgent(spec, {
        natsUrl: this.opts.natsUrl,
        messaging: this.messaging,
        discord: this.discord,
        durable: `playground-${spec.agentId}`,
        replyDelayMs: this.opts.replyDelayMs ?? 700,
        others: this.everyone,
        log: (l) => this.log(l),
      });
      await agent.start();
      this.agents.push(agent);
    }
    this.log(`playground ready: ${this.url}`);
  }

  async stop(): Promise<void> {
    // A world with unique ids is thrown away: so are its agents' durable consumers.
    for (const a of this.agents.splice(0)) await a.stop(this.opts.unique).catch(() => undefined);
    for (const s of this.subs.splice(0)) s.unsubscribe();
    this.live.clear();
    for (const c of this.clients) c.end();
    this.clients.clear();
    if (this.messaging) {
      await this.messaging.close();
      await this.messaging.client.close();
    }
    await this.orm?.close(true);
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
    await this.discord.stop();
  }

  private async call<T>(subj: string, data: unknown): Promise<T> {
    if (!this.messaging) throw new HttpError(503, 'the playground agents are not started yet');
    const r: Reply<T> = await this.messaging.request<T>(subj, data, 10_000);
    if (!r.ok) throw new HttpError(r.error.code === 'BAD_REQUEST' ? 400 : 409, r.error.message);
    return r.data;
  }

  /** The ingest may still be connecting to the local Discord when the services are up. */
  private async retry<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
    for (let i = 1; ; i++) {
      try {
        return await fn();
      } catch (e) {
        if (i >= attempts) throw e;
        await new Promise((r) => setTimeout(r, 500 * i));
      }
    }
  }

  /**
   * Puts the seeded channel in chat mode with every demo agent in the guild as a speaker.
   * The coordinator takes the speakers from the ingest's members query at set-mode; when
   * the ingest was still connecting it got none (and a kept NATS remembers that), so the
   * mode is set again until the speakers are there. A mode the person chose is left alone.
   */
  private async seedChatChannel(): Promise<void> {
    const get = () =>
      this.call<{ mode: string; speakers: string[] }>(Subjects.admin.channelGet, {
        channelId: this.chatChannelId,
      });
    const members = this.discord.guilds.get(this.guildId)!.members;
    const expected = [...this.agentSpecs, this.dit].filter((a) => members.has(a.userId)).length;
    const view = await get();
    if (view.mode !== 'none' && view.mode !== 'chat') return;
    if (view.mode === 'chat' && view.speakers.length >= expected) return;
    if (view.mode === 'chat') await this.setMode(this.chatChannelId, 'none');
    await this.setMode(this.chatChannelId, 'chat');
    const after = await get();
    if (after.speakers.length < expected) {
      throw new Error(`the coordinator knows ${after.speakers.length} of ${expected} agents yet`);
    }
  }

  private setMode(channelId: string, mode: string) {
    return this.call(Subjects.admin.channelSetMode, { guildId: this.guildId, channelId, mode });
  }

  private async channelState(channelId: string) {
    const c = this.discord.channels.get(channelId);
    const folded = await this.data!.channel(channelId);
    const names = new Map([...this.agentSpecs, this.dit].map((a) => [a.agentId, a.name]));
    return {
      id: channelId,
      name: c?.name ?? channelId,
      view: folded.view,
      speakers: folded.view.speakers.map((s) => names.get(s) ?? s),
      currentSpeaker: folded.view.currentSpeaker
        ? (names.get(folded.view.currentSpeaker) ?? folded.view.currentSpeaker)
        : null,
      timelineSvg: renderTimelineSvg(folded.timeline.slice(-60), `#${c?.name ?? channelId}`, names),
    };
  }

  /** A stored commit of the channel: its state is pushed once the read model holds it. */
  private later(channelId: string): void {
    if (this.clients.size) this.live.announce(channelId);
  }

  private send(event: string, data: unknown): void {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const c of this.clients) c.write(frame);
  }

  private async state() {
    const g = this.discord.guilds.get(this.guildId)!;
    const channels = await Promise.all(
      g.channelIds
        .filter((id) => this.discord.channels.get(id)?.type === 0)
        .map((id) => this.channelState(id)),
    );
    return {
      guild: { id: g.id, name: g.name },
      human: { id: this.humanId, name: 'You' },
      agents: this.everyone.map((a) => ({
        ...a,
        builtin: a === this.dit || a === this.molt,
        inGuild: g.members.has(a.userId),
      })),
      decisions: await latestDecisions(this.messaging!, this.guildId),
      controlUrl: this.controlUrl ? `${this.controlUrl}?tab=decisions&guild=${this.guildId}` : null,
      channels,
      messages: Object.fromEntries(
        channels.map((c) => [
          c.id,
          this.discord.channelMessages(c.id).map((m) => messageJson(this.discord, m)),
        ]),
      ),
    };
  }
}

/** Starts the playground's local Discord and page; see {@link Playground}. */
export function startPlayground(opts: PlaygroundOptions): Promise<Playground> {
  return Playground.start(opts);
}
