/// <reference lib="dom" />
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { Browser, Page } from 'playwright-core';
import {
  Streams,
  Subjects,
  envelope,
  subject,
  type DeadLetterRecord,
  type Envelope,
} from '@dirigent/contracts';
import { FakeDiscord } from '@dirigent/discord-fake';
import type { Messaging } from '@dirigent/messaging';
import { closeMessaging, snowflake, testMessaging, uid, waitFor } from '@dirigent/testing';
import { startServiceApp } from '@dirigent/service-kit';
import { serveFakeGuilds } from '../../libs/playground/src';
import { LlmGatewayService } from '../../services/llm-gateway/llm-gateway.module';
import { MemoryService } from '../../services/memory/memory.module';
import { RouterService } from '../../services/router/router.module';
import {
  agentId,
  artifact,
  baseEnv,
  launchChromium,
  startCoordinator,
  startIngest,
  stopAll,
} from './support';

const TOKEN = `control-${uid('tok')}-0123456789`;

describe('control page /dirigent in Chromium', () => {
  let discord: FakeDiscord;
  let messaging: Messaging;
  let ingest: INestApplication;
  let coordinator: INestApplication;
  let others: INestApplication[] = [];
  let base: string;
  let browser: Browser;
  let page: Page;
  const guildId = snowflake();
  const human = snowflake();
  const agents = [
    { userId: snowflake(), agentId: agentId('ada'), name: `Ada ${uid('n').slice(-5)}` },
    { userId: snowflake(), agentId: agentId('bo'), name: `Bo ${uid('n').slice(-5)}` },
  ];
  let general: string;
  let workChannel: string;
  let lounge: string;
  const egoFile = join(mkdtempSync(join(tmpdir(), 'control-e2e-')), 'ego.json');
  const egoAgent = { userId: snowflake(), agentId: agentId('ego') };
  const writeEgo = (scope: Record<string, { 'discord-id': string }>) =>
    writeFileSync(egoFile, JSON.stringify({ columns: ['discord-id'], agentScope: scope }));

  const ok = async <T>(subj: string, data: unknown): Promise<T> => {
    const r = await messaging.request<T>(subj, data, 10_000);
    if (!r.ok) throw new Error(`${subj}: ${JSON.stringify(r.error)}`);
    return r.data;
  };

  beforeAll(async () => {
    discord = await FakeDiscord.start({ token: uid('discord-token') });
    discord.createUser({ id: human, username: 'hana' });
    for (const a of agents) discord.createUser({ id: a.userId, username: a.agentId, bot: true });
    discord.createGuild({ id: guildId, name: `control-e2e-${guildId.slice(-4)}` });
    discord.addMember(guildId, human, { manageChannels: true });
    for (const a of agents) discord.addMember(guildId, a.userId);
    general = discord.createChannel(guildId, { id: snowflake(), name: 'general' }).id;
    lounge = discord.createChannel(guildId, { id: snowflake(), name: 'lounge' }).id;
    messaging = await testMessaging(uid('control-e2e'));
    // Until the ingest answers the guild query itself, the local Discord does.
    serveFakeGuilds(messaging, discord);
    ingest = await startIngest(discord);
    writeEgo({});
    const started = await startCoordinator({
      DIRIGENT_EGO_FILE: egoFile,
      DIRIGENT_CONTROL_TOKEN: TOKEN,
      DIRIGENT_MODERATOR_USER_ID: discord.bot.id,
    });
    coordinator = started.app;
    base = `http://127.0.0.1:${started.port}`;
    for (const a of agents) {
      await ok(Subjects.admin.identityUpsert, {
        discordUserId: a.userId,
        agentId: a.agentId,
        agentName: a.name,
      });
    }
    ({ channelId: workChannel } = await ok<{ channelId: string }>(
      subject.tool('create-work-channel'),
      { callerAgentId: agents[0].agentId, guildId, name: 'build', members: [agents[1].userId] },
    ));
    // Memory (closing epochs after a second of silence) and the router's built-in Dit,
    // whose models answer `no-reply` without keys.
    for (const [def, env] of [
      [LlmGatewayService, { LLM_GATEWAY_PORT: '0' }],
      [
        MemoryService,
        {
          MEMORY_PORT: '0',
          DIRIGENT_MEMORY_EMBEDDER: 'local',
          DIRIGENT_EPOCH_GAP_MS: '1000',
          DIRIGENT_MEMORY_GATEWAY_TIMEOUT_MS: '2000',
        },
      ],
      [RouterService, { ROUTER_PORT: '0' }],
    ] as const) {
      others.push((await startServiceApp(def as never, { ...baseEnv(), ...env })).app);
    }
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  });

  afterAll(async () => {
    await browser?.close();
    await stopAll([ingest, coordinator, ...others]);
    others = [];
    await closeMessaging(messaging);
    await discord.stop();
  });

  it('answers 401 without the token and leaks nothing', async () => {
    const pageRes = await fetch(`${base}/dirigent`);
    expect(pageRes.status).toBe(401);
    const html = await pageRes.text();
    expect(html).toContain('Control token');
    expect(html).not.toContain(agents[0].agentId);
    expect(html).not.toContain(guildId);
    for (const tab of ['memory', 'decisions']) {
      const res = await fetch(`${base}/dirigent?tab=${tab}`);
      expect(res.status).toBe(401);
      expect(await res.text()).not.toContain(guildId);
    }

    for (const path of [
      '/dirigent/api/identities',
      '/dirigent/api/guilds',
      '/dirigent/api/events',
    ]) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(401);
      expect(await res.text()).not.toContain(agents[0].agentId);
    }
    const wrong = await fetch(`${base}/dirigent/api/identities`, {
      headers: { authorization: 'Bearer not-the-token-at-all' },
    });
    expect(wrong.status).toBe(401);
    const forged = await fetch(`${base}/dirigent/api/identities`, {
      headers: { cookie: `dirigent_control=${TOKEN}` },
    });
    expect(forged.status).toBe(401);

    const right = await fetch(`${base}/dirigent/api/identities`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(right.status).toBe(200);
    const body = (await right.json()) as { data: { entries: { agentId: string }[] } };
    expect(body.data.entries.map((e) => e.agentId)).toEqual(
      expect.arrayContaining(agents.map((a) => a.agentId)),
    );
  });

  it('logs in through the form into an http-only, same-site strict session', async () => {
    await page.goto(`${base}/dirigent`);
    await page.fill('#token', 'wrong-token-wrong-token');
    await page.click('button[type=submit]');
    await page.waitForSelector('#login-error:has-text("not right")');

    await page.fill('#token', TOKEN);
    await Promise.all([page.waitForURL(`${base}/dirigent`), page.click('button[type=submit]')]);
    await page.waitForSelector('#h-identities');
    const [cookie] = await page.context().cookies();
    expect(cookie).toMatchObject({ name: 'dirigent_control', httpOnly: true, sameSite: 'Strict' });
    expect(cookie.value).not.toContain(TOKEN);
    await page.waitForSelector('#live-status:has-text("live")');
  });

  it('shows the registry and adds, refuses, edits and deletes an identity inline', async () => {
    for (const a of agents) {
      await expect(page.inputValue(`#agent-${a.userId}`)).resolves.toBe(a.agentId);
    }
    const user = snowflake();
    const id = agentId('cy');

    await page.fill('#new-user', 'not-a-snowflake');
    await page.fill('#new-agent', 'bad agent id!');
    await page.click('button[data-action="add-identity"]');
    await page.waitForSelector('#err-new:has-text("must be a Discord snowflake")');
    expect(await page.textContent('#err-new')).toContain('letters, digits');
    expect(await page.$(`#id-${user}`)).toBeNull();

    await page.fill('#new-user', user);
    await page.fill('#new-agent', id);
    await page.fill('#new-name', 'Cy');
    await page.press('#new-name', 'Enter');
    await page.waitForSelector(`#id-${user}`);
    expect(await page.textContent('#err-new')).toBe('');
    expect(await page.inputValue(`#name-${user}`)).toBe('Cy');

    await page.fill(`#name-${user}`, 'Cyrus');
    await page.click(`button[data-action="save-identity"][data-user="${user}"]`);
    await waitFor(async () => {
      const { entries } = await ok<{ entries: { discordUserId: string; agentName: string }[] }>(
        Subjects.admin.identityList,
        {},
      );
      return entries.find((e) => e.discordUserId === user)?.agentName === 'Cyrus';
    });
    await page.waitForFunction((u) => {
      const el = document.getElementById(`name-${u}`) as HTMLInputElement | null;
      return el?.value === 'Cyrus';
    }, user);

    await page.fill(`#agent-${user}`, '');
    await page.click(`button[data-action="save-identity"][data-user="${user}"]`);
    await page.waitForSelector(`#err-${user}:has-text("letters, digits")`);

    await page.click(`button[data-action="delete-identity"][data-user="${user}"]`);
    await page.waitForSelector(`#id-${user}`, { state: 'detached' });
  });

  it('lists guilds and channels, changes a mode and shows the turn state live', async () => {
    const block = `#ch-${general}`;
    await page.waitForSelector(`${block} [data-field="mode"]:has-text("none")`);
    await page.selectOption(`#mode-${general}`, 'chat');
    await page.waitForSelector(`${block} [data-field="mode"]:has-text("chat")`);
    await page.waitForSelector(`${block} [data-field="tmState"]:has-text("normal")`);
    await page.waitForSelector(`${block} [data-field="dormant"]:has-text("yes")`);
    for (const a of agents)
      await page.waitForSelector(`${block} .speakers li:has-text("${a.name}")`);

    // A human message wakes the channel: the coordinator grants a turn, nobody clicked.
    discord.postMessage({ channelId: general, authorId: human, content: 'hello agents' });
    await page.waitForSelector(`${block} [data-field="dormant"]:has-text("no")`);
    const speaker = await page.waitForSelector(
      `${block} [data-field="currentSpeaker"]:has-text("${agents[0].name}"), ${block} [data-field="currentSpeaker"]:has-text("${agents[1].name}")`,
    );
    expect(await speaker.textContent()).toMatch(/Ada|Bo/);
    await page.waitForSelector(`${block} svg.timeline .tl-granted`);
    await page.waitForSelector(`${block} svg.timeline .tl-woke`);
    await page.screenshot({ path: artifact('control-page-1280x800.png'), fullPage: true });
  });

  it('shows work and discussion channels locked, and the API refuses changing them', async () => {
    const block = `#ch-${workChannel}`;
    await page.waitForSelector(`${block} .badge.locked:has-text("work")`);
    expect(await page.$(`#mode-${workChannel}`)).toBeNull();
    const res = await fetch(`${base}/dirigent/api/channels/${workChannel}/mode`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ guildId, mode: 'report' }),
    });
    const body = (await res.json()) as { error: { code: string } };
    expect({ status: res.status, code: body.error?.code }).toEqual({
      status: 409,
      code: 'MODE_LOCKED',
    });
  });

  it('changes the shuffle override and the wake mode of a channel', async () => {
    const block = `#ch-${general}`;
    await page.selectOption(`#shuffle-${general}`, 'on');
    await page.waitForSelector(`${block} #shuffle-${general} option[value="on"][selected]`, {
      state: 'attached',
    });
    await page.selectOption(`#wake-${general}`, 'granted');
    await page.waitForSelector(`${block} #wake-${general} option[value="granted"][selected]`, {
      state: 'attached',
    });
    const view = await ok<{ shuffle: boolean | null; wakeMode: string }>(
      Subjects.admin.channelGet,
      {
        channelId: general,
      },
    );
    expect(view).toMatchObject({ shuffle: true, wakeMode: 'granted' });
  });

  it('re-scans padded-cell when its ego.json is detected', async () => {
    writeEgo({ [egoAgent.agentId]: { 'discord-id': egoAgent.userId } });
    await page.click('button[data-action="rescan"]');
    await page.waitForSelector('#rescan-status:has-text("imported 1")');
    await page.waitForSelector(`#id-${egoAgent.userId}`);
  });

  it('lists a dead letter live and re-drives its original payload under a new id', async () => {
    const original = envelope('discord.send-message', 'control-e2e', {
      guildId,
      channelId: general,
      content: `re-driven ${uid('dl')}`,
      purpose: 'notice',
    });
    const record: DeadLetterRecord = {
      stream: Streams.discordCommands,
      durable: 'control-e2e',
      subject: Subjects.discord.cmdSendMessage,
      streamSeq: 1,
      deliveries: 5,
      error: 'Missing Access',
      payload: JSON.stringify(original),
    };
    const { seq } = await messaging.publishEvent(
      subject.deadLetter(Streams.discordCommands, 'control-e2e'),
      'dead-letter',
      record,
    );
    const again = new Promise<Envelope>((resolve) => {
      const sub = messaging.client.nc.subscribe(Subjects.discord.cmdSendMessage, {
        callback: (_e, msg) => {
          const env = msg.json<Envelope>();
          if ((env.data as { content?: string }).content !== original.data.content) return;
          sub.unsubscribe();
          resolve(env);
        },
      });
    });
    const redrive = `#dead-letter-rows button[data-seq="${seq}"]`;
    await page.waitForSelector(redrive);
    await page.click(redrive);
    await page.waitForSelector(`${redrive}:has-text("Re-driven")`);
    const republished = await again;
    expect(republished).toMatchObject({
      type: original.type,
      data: original.data,
      causationId: original.id,
    });
    expect(republished.id).not.toBe(original.id);
    // ... and the ingest carries it out.
    await waitFor(
      () => discord.channelMessages(general).some((m) => m.content === original.data.content),
      20_000,
    );
  });

  it("shows one guild's memory: live window, epochs, highlights, dossiers and a search", async () => {
    const word = `kettle${uid('w')
      .replace(/[^a-z0-9]/gi, '')
      .slice(-6)}`;
    const said = `hana thinks the <b>${word}</b> should whistle`;
    const messageId = snowflake();
    await messaging.publishEvent(
      subject.discordEvent(guildId, lounge, 'message.created'),
      'message.created',
      {
        guildId,
        channelId: lounge,
        messageId,
        authorId: human,
        authorName: 'hana',
        authorIsBot: false,
        content: said,
        createdAt: new Date().toISOString(),
      },
    );
    await waitFor(async () => {
      const r = await messaging.request(Subjects.memory.highlightAdd, {
        guildId,
        channelId: lounge,
        messageId,
      });
      return r.ok;
    }, 20_000);
    await waitFor(async () => {
      const r = await messaging.request<{ epochs: { channelId: string }[] }>(
        Subjects.memory.epochsList,
        { guildId },
      );
      return r.ok && r.data.epochs.some((e) => e.channelId === lounge);
    }, 20_000);

    await page.click('#tab-memory');
    await page.waitForSelector('#h-memory');
    await page.waitForSelector(`#memory-live li:has-text("${word}")`);
    await page.waitForSelector(`#memory-highlights li:has-text("${word}")`);
    await page.waitForSelector('#memory-epochs li:has-text("#lounge")');
    await page.waitForSelector(`#memory-dossiers li:has-text("${human}")`);
    // Escaped, not markup.
    expect(await page.$(`#memory-live b`)).toBeNull();
    await page.fill('#memory-q', `${word} whistle`);
    await Promise.all([page.waitForURL(/q=/), page.click('form[role=search] button')]);
    await page.waitForSelector(`#memory-hits li:has-text("${word}")`);
    await page.screenshot({ path: artifact('control-memory-1280x800.png'), fullPage: true });
  });

  it("lists the router's decisions with scores, seed and filters", async () => {
    const messageId = snowflake();
    await messaging.publishEvent(
      subject.discordEvent(guildId, lounge, 'message.created'),
      'message.created',
      {
        guildId,
        channelId: lounge,
        messageId,
        authorId: human,
        authorName: 'hana',
        authorIsBot: false,
        content: 'Dit, what do you make of the kettle?',
        createdAt: new Date().toISOString(),
      },
    );
    const decision = await waitFor(async () => {
      const r = await messaging.request<{
        decisions: { decisionId: string; chosen: string; seed: string }[];
      }>(Subjects.router.decisionsList, { guildId, channelId: lounge });
      return r.ok ? r.data.decisions.find((d) => d.seed.startsWith(messageId)) : undefined;
    }, 30_000);

    await page.click('#tab-decisions');
    await page.waitForSelector('#h-decisions');
    const card = `#decision-${decision.decisionId}`;
    await page.waitForSelector(`${card} [data-field="chosen"]:has-text("${decision.chosen}")`);
    await page.waitForSelector(`${card} [data-field="trigger"]:has-text("reactive")`);
    await page.waitForSelector(`${card} [data-field="seed"]:has-text("${decision.seed}")`);
    await page.waitForSelector(`${card} .scores li.chosen`);
    await page.waitForSelector(`${card} [data-field="latency"]:has-text("ms")`);

    await page.selectOption('#f-channel', lounge);
    await page.selectOption('#f-trigger', 'self-followup');
    await Promise.all([
      page.waitForURL(/trigger=self-followup/),
      page.click('form.filters button'),
    ]);
    expect(await page.$(card)).toBeNull();
    await page.selectOption('#f-trigger', 'reactive');
    await page.fill('#f-disposition', decision.chosen);
    await Promise.all([page.waitForURL(/trigger=reactive/), page.click('form.filters button')]);
    await page.waitForSelector(card);
    await page.screenshot({ path: artifact('control-decisions-1280x800.png'), fullPage: true });
  });

  it("shows each persona's fields, versions with rollback and its weights over time", async () => {
    await ok(Subjects.admin.personaUpsert, {
      agentId: 'dit',
      dispositionWeights: { 'quick-react': 1.2 },
      bannedPhrases: ['as an AI', 'frankly'],
    });
    const v3 = await ok<{ version: number }>(Subjects.admin.personaUpsert, {
      agentId: 'dit',
      dispositionWeights: { 'quick-react': 0.9, 'roast-back': 1.1 },
      learning: { enabled: false },
    });
    await page.goto(`${base}/dirigent`);
    await page.click('#tab-personas');
    await page.waitForSelector('#h-personas');
    await page.waitForSelector(`#persona-fields[data-version="${v3.version}"]`);
    await page.waitForSelector('#persona-fields [data-field="banned"]:has-text("frankly")');
    await page.waitForSelector('#persona-fields [data-field="learning"]:has-text("frozen")');
    await page.waitForSelector('#persona-chart g[data-disposition="quick-react"] polyline');
    await page.waitForSelector('#persona-chart g[data-disposition="roast-back"] polyline');
    expect(
      await page.$$eval('#persona-chart g[data-disposition="quick-react"] circle', (c) => c.length),
    ).toBe(v3.version);
    await page.waitForSelector(`#persona-v${v3.version} .badge:has-text("active")`);
    await page.screenshot({ path: artifact('control-personas-1280x800.png'), fullPage: true });
    // Roll back to the seed: written as the next version, the page shows it.
    await Promise.all([
      page.waitForNavigation(),
      page.click('#persona-v1 button[data-action="rollback-persona"]'),
    ]);
    const next = v3.version + 1;
    await page.waitForSelector(`#persona-fields[data-version="${next}"]`);
    await page.waitForSelector(`#persona-v${next}:has-text("rollback")`);
    await page.waitForSelector('#persona-fields [data-field="learning"]:has-text("on")');
    expect(await page.textContent('#persona-fields [data-field="banned"]')).not.toContain(
      'frankly',
    );
    const p = await ok<{ version: number; dispositionWeights: Record<string, number> }>(
      Subjects.admin.personaGet,
      { agentId: 'dit' },
    );
    expect(p.version).toBe(next);
    expect(p.dispositionWeights).toEqual({});
    // A refused rollback is shown, not swallowed.
    const r = await page.evaluate(() =>
      fetch('/dirigent/api/personas/dit/rollback', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ version: 999 }),
      }).then((x) => x.status),
    );
    expect(r).toBe(404);
  });

  it('is usable at 390×844 and by keyboard', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const tab of ['memory', 'decisions']) {
      await page.goto(`${base}/dirigent?tab=${tab}&guild=${guildId}`);
      await page.waitForSelector(`#h-${tab}`);
      const wide = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(wide).toBeLessThanOrEqual(0);
      await page.screenshot({ path: artifact(`control-${tab}-390x844.png`) });
    }
    await page.goto(`${base}/dirigent`);
    await page.waitForSelector('#h-identities');
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await page.focus('#new-user');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('new-agent');
    await page.screenshot({ path: artifact('control-page-390x844.png') });
  });
});

describe('control page without DIRIGENT_CONTROL_TOKEN', () => {
  it('is disabled: 503 with a clear message for the page and the API, nothing served', async () => {
    const { app, port } = await startCoordinator({ DIRIGENT_CONTROL_TOKEN: '' });
    try {
      const page = await fetch(`http://127.0.0.1:${port}/dirigent`);
      expect(page.status).toBe(503);
      expect(await page.text()).toContain('DIRIGENT_CONTROL_TOKEN');
      const api = await fetch(`http://127.0.0.1:${port}/dirigent/api/identities`, {
        headers: { authorization: 'Bearer anything-at-all-0123456789' },
      });
      expect(api.status).toBe(503);
      expect(((await api.json()) as { error: { message: string } }).error.message).toContain(
        'disabled',
      );
    } finally {
      await app.close();
    }
  });
});
