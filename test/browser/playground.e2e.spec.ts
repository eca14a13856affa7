/// <reference lib="dom" />
import './fresh-orm-metadata';
import type { INestApplication } from '@nestjs/common';
import type { Browser, Page } from 'playwright-core';
import { Subjects } from '@dirigent/contracts';
import { startServiceApp } from '@dirigent/service-kit';
import { closeMessaging, testMessaging, testNatsUrl, uid } from '@dirigent/testing';
import type { Messaging } from '@dirigent/messaging';
import { Playground, startPlayground } from '../../libs/playground/src';
import { LlmGatewayService } from '../../services/llm-gateway/definition';
import {
  artifact,
  baseEnv,
  launchChromium,
  startCoordinator,
  startIngest,
  stopAll,
} from './support';

describe('playground /playground in Chromium', () => {
  let playground: Playground;
  let apps: INestApplication[] = [];
  let messaging: Messaging;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    playground = await startPlayground({
      natsUrl: testNatsUrl(),
      port: 0,
      unique: true,
      replyDelayMs: 0,
      baseEnv: {},
      log: () => undefined,
    });
    messaging = await testMessaging(uid('playground-e2e'));
    const env = { ...playground.env };
    const gateway = await startServiceApp(LlmGatewayService, {
      ...baseEnv(),
      ...env,
      LLM_GATEWAY_PORT: '0',
    });
    apps.push(gateway.app);
    apps.push((await startCoordinator(env)).app);
    apps.push(await startIngest(playground.discord, env));
    await playground.startAgents();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  });

  afterAll(async () => {
    await browser?.close();
    await playground?.stop();
    await stopAll(apps, messaging);
    apps = [];
    await closeMessaging(messaging);
  });

  it('shows the seeded guild; a human message is answered by the three agents in turn, then the channel goes dormant', async () => {
    await page.goto(playground.url);
    await page.waitForSelector('#live:has-text("live")');
    await page.waitForSelector('#channel-title:has-text("#agents-chat")');
    await page.waitForSelector('#tm-state:has-text("shuffle"), #tm-state:has-text("normal")');
    await page.waitForSelector('#dormant:has-text("yes")');

    await page.fill('#content', 'Hello agents, what shall we build today?');
    await page.press('#content', 'Enter');
    await page.waitForSelector('#messages li[data-kind="human"]:has-text("what shall we build")');

    // Each agent answers once, in the coordinator's speaker order, then all pass.
    await page.waitForFunction(
      () => document.querySelectorAll('#messages li[data-kind="agent"]').length >= 3,
      undefined,
      { timeout: 60_000 },
    );
    await page.waitForSelector('#dormant:has-text("yes (unanimous-empty)")', { timeout: 60_000 });

    const replies = await page.$$eval('#messages li[data-kind="agent"]', (items) =>
      items.map((li) => li.getAttribute('data-author')),
    );
    expect(replies).toHaveLength(3);
    expect(new Set(replies)).toEqual(new Set(['Ada', 'Basil', 'Clio']));
    const order = (await page.textContent('#order'))!.split(' → ');
    const view = await messaging.request<{ speakers: string[] }>(Subjects.admin.channelGet, {
      channelId: playground.chatChannelId,
    });
    expect(view.ok).toBe(true);
    // The first cycle's order is the order the replies came in (a shuffle happens only
    // at a later cycle boundary, after the channel went dormant).
    expect(order).toHaveLength(3);
    await page.waitForSelector('#timeline svg .tl-dormant');
    expect(await page.$$('#timeline svg .tl-completed.tl-real')).toHaveLength(3);
    expect(await page.$$('#timeline svg .tl-completed.tl-empty')).toHaveLength(3);

    await page.screenshot({ path: artifact('playground-1280x800.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: artifact('playground-390x844.png'), fullPage: true });
  });
});
