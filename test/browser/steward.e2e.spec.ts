/// <reference lib="dom" />
import type { INestApplication } from '@nestjs/common';
import type { Browser, Page } from 'playwright-core';
import { waitFor } from '@dirigent/testing';
import type { Playground } from '../../libs/playground/src';
import { ProposalService } from '../../services/router/steward/application/proposals';
import { artifact, launchChromium, startPlaygroundStack, stopAll } from './support';

/**
 * The skills and the steward in the playground, in Chromium, with the offline model: Dit,
 * asked by name, rolls dice, opens a native poll and a thread and pins a message; the guild's
 * `dit-mod` channel is there, a proposal (one made directly, one asked of Dit) shows up in it
 * with ✅ Approve / ❌ Reject, and the playground's human (the guild owner, so ManageGuild)
 * approves it by clicking; the action runs and its outcome is said.
 */
describe('playground: Dit acts by skills; steward proposals approved by the human, in Chromium', () => {
  let playground: Playground;
  let apps: INestApplication[] = [];
  let router: INestApplication;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ playground, apps, router } = await startPlaygroundStack());
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

  const dit = '#messages li[data-kind="agent"][data-author="Dit"]';
  /**
   * Asks Dit in the chat channel; resolves with what Dit said that matches `said`: its message,
   * or its decision in the panel (its post may be held back by the bots' run bound, the demo
   * agents answering too; the decision shows what the turn did all the same).
   */
  const askDit = async (text: string, said: string) => {
    await page.click(`#channels button[data-channel="${playground.chatChannelId}"]`);
    await page.fill('#content', text);
    await page.press('#content', 'Enter');
    try {
      return await page.waitForSelector(
        `${dit}:has-text("${said}"), #decisions li:has-text("${said}")`,
        { timeout: 90_000 },
      );
    } catch (e) {
      // Say what Dit did say, and what the router chose for it.
      const texts = await page.$$eval(dit, (xs) => xs.map((x) => x.textContent));
      const chosen = await page.$$eval('#decisions li', (xs) => xs.map((x) => x.textContent));
      throw new Error(
        `${(e as Error).message}\nDit said: ${JSON.stringify(texts)}\ndecisions: ${JSON.stringify(chosen)}`,
      );
    }
  };

  /** A few turns of the whole guild (the demo agents answer too) on a shared machine. */
  const SLOW = 300_000;

  it(
    'Dit, asked by name, rolls the dice',
    async () => {
      await page.goto(playground.url);
      await page.waitForSelector('#live:has-text("live")');
      const rolled = await askDit('Dit, roll 2d6+1 for me', '🎲 2d6+1:');
      // The decision panel quotes the text as sent; the chat shows Discord's bold as bold.
      expect(await rolled.textContent()).toMatch(/🎲 2d6\+1: \d, \d → (\*\*)?\d{1,2}\b/);
      if ((await rolled.getAttribute('data-kind')) === 'agent')
        expect(await rolled.$eval('.content strong', (b) => b.textContent)).toMatch(/^\d{1,2}$/);
    },
    SLOW,
  );

  it(
    'Dit, asked by name, pins the message before',
    async () => {
      await page.goto(playground.url);
      await page.waitForSelector('#live:has-text("live")');
      await page.fill('#content', 'we ship the beta on friday');
      await page.press('#content', 'Enter');
      await page.waitForSelector('#messages li[data-kind="human"]:has-text("on friday")');
      await askDit('Dit, pin that', 'Pinned it.');
      const pinned = await page.waitForSelector('#messages li:has(.pinned)');
      const pinnedId = (await pinned.getAttribute('id'))!.slice('m-'.length);
      const chat = playground.chatChannelId;
      expect(
        playground.discord
          .channelMessages(chat)
          .filter((m) => m.pinned)
          .map((m) => m.id),
      ).toEqual([pinnedId]);
    },
    SLOW,
  );

  it(
    'Dit, asked by name, opens a native poll and a thread',
    async () => {
      const chat = playground.chatChannelId;
      await askDit('Dit, open a poll: pizza or tacos?', "Poll's up: pizza or tacos?");
      const poll = await page.waitForSelector(
        '#messages li .poll[data-question="pizza or tacos?"]',
      );
      expect(await poll.$$eval('.answer', (xs) => xs.map((x) => x.textContent))).toEqual([
        'pizza',
        'tacos',
      ]);
      const native = playground.discord.channelMessages(chat).filter((m) => m.poll);
      if (native.length !== 1) {
        // Say which turns made them: the decisions' seeds name the grant or the message.
        const chosen = await page.$$eval('#decisions li', (xs) => xs.map((x) => x.textContent));
        throw new Error(`${native.length} polls; decisions: ${JSON.stringify(chosen)}`);
      }
      expect(native.map((m) => m.poll!.answers)).toEqual([['pizza', 'tacos']]);

      await askDit('Dit, open a thread about the road trip', 'Opened a thread: ');
      const threads = [...playground.discord.channels.values()].filter(
        (c) => c.parentId === chat && c.name === 'the road trip',
      );
      expect(threads).toHaveLength(1);
      await page.screenshot({ path: artifact('playground-skills-1280x800.png'), fullPage: true });
    },
    SLOW,
  );

  it(
    'a restructure asked of Dit is a proposal in #dit-mod; approved there, its steps run',
    async () => {
      await askDit(
        'Dit, please restructure the server: create #garden-planning, create role gardeners',
        'asked the moderators',
      );
      await page.click('#channels button:has-text("dit-mod")');
      await page.waitForSelector('#channel-title:has-text("#dit-mod")');
      const post = '#messages li[data-kind="moderator"]:has-text("propose_restructure")';
      await page.waitForSelector(`${post} .reaction[data-emoji="✅"]`, { timeout: 60_000 });
      const text = (await page.textContent(post))!;
      expect(text).toContain('create #garden-planning');
      // The post names the member who asked (and the agent that heard them), not ids.
      expect(text).toMatch(/from You \(human\) \(asked dit\S*\) in #agents-chat/);
      const proposalId = /Proposal `([^`]+)`/.exec(text)![1];
      await page.screenshot({
        path: artifact('playground-restructure-1280x800.png'),
        fullPage: true,
      });

      await page.click(`${post} button[data-emoji="✅"]`);
      // Each step is run in order and its result said in #dit-mod, then the outcome.
      await page.waitForSelector(
        '#messages li[data-kind="moderator"]:has-text("Step 1/2 (create #garden-planning) done")',
        { timeout: 60_000 },
      );
      await page.waitForSelector(
        '#messages li[data-kind="moderator"]:has-text("Step 2/2 (create role gardeners) done")',
        { timeout: 60_000 },
      );
      await page.waitForSelector(
        `#messages li[data-kind="moderator"]:has-text("${proposalId}\` approved and done")`,
        { timeout: 60_000 },
      );
      await page.waitForSelector('#channels button:has-text("garden-planning")', {
        timeout: 60_000,
      });
    },
    SLOW,
  );
});
