/// <reference lib="dom" />
import type { INestApplication } from '@nestjs/common';
import type { Browser, Page } from 'playwright-core';
import { closeMessaging, testMessaging, uid, waitFor } from '@dirigent/testing';
import type { Messaging } from '@dirigent/messaging';
import { ChannelReadModel, ControlData } from '../../libs/control-web/src';
import type { Playground } from '../../libs/playground/src';
import { artifact, launchChromium, startPlaygroundStack, stopAll } from './support';

describe('playground /playground in Chromium', () => {
  let playground: Playground;
  let apps: INestApplication[] = [];
  let messaging: Messaging;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ playground, apps } = await startPlaygroundStack({
      memoryEnv: { DIRIGENT_MEMORY_EMBEDDER: 'local', DIRIGENT_EPOCH_GAP_MS: '1000' },
    }));
    messaging = await testMessaging(uid('playground-e2e'));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  });

  afterAll(async () => {
    await browser?.close();
    // The services first (as npm start does), then the local Discord they talk to.
    await stopAll(apps);
    await playground?.stop();
    apps = [];
    await closeMessaging(messaging);
  });

  /** What no reply may show: a prompt's scaffolding, the old echo marker, an error. */
  const SCAFFOLDING = /## |\[offline|answer:|NO_REPLY|Error|\bat .*\.js:\d+/;
  const agentTexts = () =>
    page.$$eval('#messages li[data-kind="agent"]', (items) =>
      items.map((li) => li.textContent ?? ''),
    );

  const demoReplies = () =>
    page.$$eval('#messages li[data-kind="agent"]:not([data-author="Dit"])', (items) =>
      items.map((li) => li.getAttribute('data-author')),
    );

  it('shows the seeded guild; a human message is answered by the three agents in turn, then the channel goes dormant', async () => {
    await page.goto(playground.url);
    await page.waitForSelector('#live:has-text("live")');
    await page.waitForSelector('#channel-title:has-text("#agents-chat")');
    await page.waitForSelector('#tm-state:has-text("shuffle"), #tm-state:has-text("normal")');
    await page.waitForSelector('#dormant:has-text("yes")');

    await page.fill('#content', 'Hello agents, what shall we build today?');
    await page.press('#content', 'Enter');
    await page.waitForSelector('#messages li[data-kind="human"]:has-text("what shall we build")');

    // Each agent answers once, in the coordinator's speaker order, then all pass; Dit,
    // not called by name, listens.
    await page.waitForFunction(
      () => document.querySelectorAll('#messages li[data-kind="agent"]').length >= 3,
      undefined,
      { timeout: 60_000 },
    );
    await page.waitForSelector('#dormant:has-text("yes (unanimous-empty)")', { timeout: 60_000 });

    const replies = await demoReplies();
    expect(replies).toHaveLength(3);
    expect(await page.$('#messages li[data-author="Dit"]')).toBeNull();
    await page.waitForSelector('#decisions li[data-chosen="silent-listen"]');
    expect(new Set(replies)).toEqual(new Set(['Ada', 'Basil', 'Clio']));
    // In turn: the replies came in the order the coordinator granted the turns.
    const reads = apps[1].get(ChannelReadModel, { strict: false });
    const { timeline } = await new ControlData(messaging, reads).channel(playground.chatChannelId);
    const names = new Map(playground.agentSpecs.map((a) => [a.agentId, a.name]));
    const grants = timeline.filter((i) => i.kind === 'granted');
    expect(
      grants
        .map((g) => names.get((g as { agentId: string }).agentId))
        .filter(Boolean)
        .slice(0, 3),
    ).toEqual(replies);
    await page.waitForSelector('#timeline svg .tl-dormant');
    expect(await page.$$('#timeline svg .tl-completed.tl-real')).toHaveLength(3);
    // Dit's two silent turns and the three agents' passes.
    expect(await page.$$('#timeline svg .tl-completed.tl-empty')).toHaveLength(5);
  });

  it('multi-message markers hold the agents until the end marker, then they answer again', async () => {
    await page.click('button[data-marker="↗️"]');
    await page.type('#content', 'here is a long thought: we should build a birdhouse');
    await page.press('#content', 'Enter');
    await page.waitForSelector('#tm-state:has-text("multi-message")');
    await page.fill('#content', 'and its second part is cedar wood');
    await page.press('#content', 'Enter');
    await page.waitForSelector('#messages li[data-kind="moderator"]:has-text("⤵️")');
    expect(await demoReplies()).toHaveLength(3);

    await page.click('button[data-marker="↙️"]');
    await page.press('#content', 'Enter');
    await page.waitForFunction(
      () => document.querySelectorAll('#messages li[data-kind="agent"]').length >= 6,
      undefined,
      { timeout: 60_000 },
    );
    await page.waitForSelector('#dormant:has-text("yes (unanimous-empty)")', { timeout: 60_000 });
    expect(await page.$$('#timeline svg .tl-woke')).not.toHaveLength(0);

    await page.screenshot({ path: artifact('playground-1280x800.png'), fullPage: true });
  });

  it('Dit, called by name, takes its turn through the offline model; its decision is shown; the agents recall from memory', async () => {
    // Asked of everyone: the demo agents answer, each with one thing memory found for it (the
    // birdhouse statement, not the opening question, which also says "build").
    await page.fill('#content', 'what did we say we would build?');
    await page.press('#content', 'Enter');
    await page.waitForFunction(
      () =>
        document.querySelectorAll('#messages li[data-kind="agent"]:not([data-author="Dit"])')
          .length >= 9,
      undefined,
      { timeout: 60_000 },
    );
    const said = await agentTexts();
    expect(said.some((t) => / said(: "| (you|they)\b)/.test(t))).toBe(true);
    expect(said.some((t) => /birdhouse/.test(t))).toBe(true);
    expect(said.filter((t) => /what shall we build/.test(t))).toEqual([]);
    expect(said.filter((t) => SCAFFOLDING.test(t))).toEqual([]);
    await page.waitForSelector('#dormant:has-text("yes (unanimous-empty)")', { timeout: 60_000 });
    const demo = await demoReplies();

    // Asked of Dit by name: Dit answers, the demo agents leave it to Dit.
    await page.fill('#content', 'Dit, what did we say we would build?');
    await page.press('#content', 'Enter');
    const dit = await page.waitForSelector('#messages li[data-kind="agent"][data-author="Dit"]', {
      timeout: 60_000,
    });
    expect(await dit.textContent()).toMatch(/\w/);
    expect(SCAFFOLDING.test((await dit.textContent()) ?? '')).toBe(false);
    const decision = await page.waitForSelector(
      '#decisions li[data-trigger="reactive"]:not([data-chosen="silent-listen"])',
    );
    expect(await decision.textContent()).toMatch(/scores: .*\d\.\d{3}/);
    expect(await decision.textContent()).toContain('seed ');
    await page.waitForSelector('#dormant:has-text("yes (unanimous-empty)")', { timeout: 60_000 });
    expect(await demoReplies()).toEqual(demo);
    await page.screenshot({ path: artifact('playground-dit-1280x800.png'), fullPage: true });
  });

  it('seats Molt, who answers a mention directly and says it has no coding CLI', async () => {
    await page.waitForSelector(`#agent-${playground.molt.userId}`);
    const molt = '#messages li[data-kind="agent"][data-author^="Molt"]';
    await page.fill('#content', '@Molt what can you do?');
    await page.press('#content', 'Enter');
    const first = await page.waitForSelector(molt, { timeout: 60_000 });
    expect(await first.textContent()).toMatch(/I answer directly or hand work to my agents/);
    await page.fill('#content', '@Molt please write a python script that renames my photos');
    await page.press('#content', 'Enter');
    await page.waitForFunction((sel) => document.querySelectorAll(sel).length >= 2, molt, {
      timeout: 60_000,
    });
    const texts = await page.$$eval(molt, (items) => items.map((li) => li.textContent ?? ''));
    expect(texts[1]).toMatch(/no coding CLI is configured/);
    expect((await agentTexts()).filter((t) => SCAFFOLDING.test(t))).toEqual([]);
    await page.waitForSelector('#dormant:has-text("yes")', { timeout: 60_000 });
    await page.screenshot({ path: artifact('playground-molt-1280x800.png'), fullPage: true });
  });

  it('creates a chat and a discussion channel, and takes an agent out of the guild and back', async () => {
    await page.fill('#nc-name', 'side room');
    await page.click('#new-channel button[type=submit]');
    await page.waitForSelector('#channel-title:has-text("#side-room")');
    await page.waitForSelector('#channels button[aria-current="true"]:has-text("chat")');
    await page.fill('#nc-name', 'design review');
    await page.selectOption('#nc-kind', 'discussion');
    await page.click('#new-channel button[type=submit]');
    await page.waitForSelector('#channels button[aria-current="true"]:has-text("discussion")');
    // A discussion has no turn mode to pick: the selector turns off once its state loads.
    await page.waitForSelector('#mode:disabled', { timeout: 10_000 });
    await page.waitForSelector('#messages li:has-text("design-review")');

    const clio = playground.agentSpecs.find((a) => a.name === 'Clio')!;
    await page.uncheck(`#agent-${clio.userId}`);
    await waitFor(
      () => !playground.discord.guilds.get(playground.guildId)!.members.has(clio.userId),
    );
    await page.check(`#agent-${clio.userId}`);
    await waitFor(() =>
      playground.discord.guilds.get(playground.guildId)!.members.has(clio.userId),
    );
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: artifact('playground-390x844.png') });
  });
});
