/// <reference lib="dom" />
import type { INestApplication } from '@nestjs/common';
import type { Browser, Page } from 'playwright-core';
import { startServiceApp } from '@dirigent/service-kit';
import { testDatabaseUrl, testNatsUrl, waitFor } from '@dirigent/testing';
import { Playground, startPlayground } from '../../libs/playground/src';
import { RouterService } from '../../services/router/router.module';
import { ProposalService } from '../../services/router/steward/application/proposals';
import {
  artifact,
  baseEnv,
  launchChromium,
  startCoordinator,
  startIngest,
  stopAll,
} from './support';

/**
 * The steward in the playground, in Chromium: the guild's `dit-mod` channel is there, a
 * proposal shows up in it with ✅ Approve / ❌ Reject, and the playground's human (the guild
 * owner, so ManageGuild) approves it by clicking; the action runs and its outcome is said.
 */
describe('playground: a steward proposal approved by the human, in Chromium', () => {
  let playground: Playground;
  let apps: INestApplication[] = [];
  let router: INestApplication;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    playground = await startPlayground({
      natsUrl: testNatsUrl(),
      databaseUrl: testDatabaseUrl(),
      port: 0,
      unique: true,
      replyDelayMs: 0,
      baseEnv: {},
      log: () => undefined,
    });
    const env = { ...playground.env };
    apps.push((await startCoordinator(env)).app);
    apps.push(await startIngest(playground.discord, env));
    ({ app: router } = await startServiceApp(RouterService, {
      ...baseEnv(),
      ...env,
      ROUTER_PORT: '0',
    }));
    apps.push(router);
    await playground.startAgents();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  });

  afterAll(async () => {
    await browser?.close();
    await stopAll(apps);
    await playground?.stop();
    apps = [];
  });

  it('shows the proposal in #dit-mod; the human approves it with a click and it runs', async () => {
    await page.goto(playground.url);
    await page.waitForSelector('#live:has-text("live")');
    const mod = await page.waitForSelector('#channels button:has-text("dit-mod")', {
      timeout: 60_000,
    });
    const { proposalId } = await router.get(ProposalService).propose({
      guildId: playground.guildId,
      channelId: playground.chatChannelId,
      skillId: 'create_channel',
      tool: 'create_channel',
      args: { name: 'build-ideas', topic: 'what we build next' },
      reason: 'the chat keeps coming back to what to build',
      requestedBy: { agentId: 'dit' },
    });
    await mod.click();
    await page.waitForSelector('#channel-title:has-text("#dit-mod")');
    const post = `#messages li[data-kind="moderator"]:has-text("${proposalId}")`;
    await page.waitForSelector(`${post} .reaction[data-emoji="✅"]`, { timeout: 60_000 });
    expect(await page.textContent(post)).toContain('create_channel');
    await page.screenshot({ path: artifact('playground-proposal-1280x800.png'), fullPage: true });

    await page.click(`${post} button[data-emoji="✅"]`);
    await page.waitForSelector(
      `#messages li[data-kind="moderator"]:has-text("${proposalId}\` approved and done")`,
      { timeout: 60_000 },
    );
    await page.waitForSelector('#channels button:has-text("build-ideas")', { timeout: 60_000 });
    const made = [...playground.discord.channels.values()].filter((c) => c.name === 'build-ideas');
    expect(made).toHaveLength(1);
    await waitFor(() => playground.discord.channelMessages(made[0].id).length > 0);
    expect(playground.discord.channelMessages(made[0].id)[0].content).toContain('what we build');
    await page.screenshot({ path: artifact('playground-approved-1280x800.png'), fullPage: true });
  });
});
