/// <reference lib="dom" />
import type { INestApplication } from '@nestjs/common';
import type { Browser, Page } from 'playwright-core';
import { CONTEXT_STRATEGIES, Subjects, type MemoryContextResult } from '@dirigent/contracts';
import { Permission } from '@dirigent/discord-fake';
import type { Messaging } from '@dirigent/messaging';
import { closeMessaging, testMessaging, uid, waitFor } from '@dirigent/testing';
import type { Playground } from '../../libs/playground/src';
import { artifact, launchChromium, startPlaygroundStack, stopAll } from './support';

/**
 * What a private channel says stays there, in the playground, in Chromium, with memory
 * running: a secret said in `#dit-mod` and one said in a private channel are in no reply,
 * context or memory-skill result in the public chat channel, while the same question asked
 * in the private channel itself recalls it.
 */
describe('playground: a private channel’s secret stays there, in Chromium', () => {
  let playground: Playground;
  let apps: INestApplication[] = [];
  let messaging: Messaging;
  let browser: Browser;
  let page: Page;
  let modId: string;
  let vaultId: string;

  const launch = 'the launch code is tangerine-42';
  const vault = 'the vault combination is marmalade-77';
  const LEAK = /tangerine|marmalade/i;

  beforeAll(async () => {
    ({ playground, apps } = await startPlaygroundStack({
      memoryEnv: { DIRIGENT_MEMORY_EMBEDDER: 'local' },
    }));
    messaging = await testMessaging(uid('privacy-e2e'));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  });

  afterAll(async () => {
    await browser?.close();
    await stopAll(apps);
    await playground?.stop();
    apps = [];
    await closeMessaging(messaging);
  });

  /** A few turns of the whole guild (the demo agents answer too) on a shared machine. */
  const SLOW = 300_000;

  /** Shows a channel (clicked again while the list re-renders under the click). */
  const open = async (channelId: string) => {
    const button = `#channels button[data-channel="${channelId}"]`;
    await waitFor(
      async () => {
        await page.click(button);
        return page
          .waitForSelector(`${button}[aria-current="true"]`, { timeout: 5_000 })
          .then(() => true)
          .catch(() => false);
      },
      120_000,
      100,
      `the page to show channel ${channelId}`,
    );
  };
  const say = async (channelId: string, text: string) => {
    await open(channelId);
    await page.fill('#content', text);
    await page.press('#content', 'Enter');
    await page.waitForSelector(`#messages li[data-kind="human"]:has-text("${text}")`, {
      timeout: 60_000,
    });
  };
  /** Every message the page shows in a channel, as text. */
  const shown = async (channelId: string) => {
    await open(channelId);
    return page.$$eval('#messages li', (items) => items.map((li) => li.textContent ?? ''));
  };
  const dit = '#messages li[data-kind="agent"][data-author="Dit"]';
  /** Asks Dit in a channel and waits for its answer there (or its decision in the panel). */
  const askDit = async (channelId: string, text: string, said: string) => {
    const before = (await shown(channelId)).length;
    await say(channelId, text);
    try {
      return await page.waitForSelector(
        `${dit}:has-text("${said}"), #decisions li:has-text("${said}")`,
        { timeout: 120_000 },
      );
    } catch (e) {
      const texts = (await shown(channelId)).slice(before);
      const chosen = await page.$$eval('#decisions li', (xs) => xs.map((x) => x.textContent));
      throw new Error(
        `${(e as Error).message}\nsaid since: ${JSON.stringify(texts)}\ndecisions: ${JSON.stringify(chosen)}`,
      );
    }
  };

  const request = async <T>(subj: string, data: unknown): Promise<T> => {
    const r = await messaging.request<T>(subj, data, 30_000);
    if (!r.ok) throw new Error(`${subj}: ${r.error.code} ${r.error.message}`);
    return r.data;
  };
  /** A memory skill through the router's skill runner, asked by the human in `channelId`. */
  const skill = async (channelId: string, skillId: string, args: Record<string, unknown>) => {
    const r = await request<{ status: string; result?: unknown }>(Subjects.router.skillInvoke, {
      guildId: playground.guildId,
      channelId,
      skillId,
      tool: skillId,
      args,
      actor: { userId: playground.humanId },
    });
    expect(r.status).toBe('done');
    return JSON.stringify(r.result);
  };
  /** Every lens of `dirigent.memory.context` for `channelId`, on the secrets' topic. */
  const contexts = (channelId: string) =>
    Promise.all(
      CONTEXT_STRATEGIES.map(async (strategy) => {
        const c = await request<MemoryContextResult>(Subjects.memory.context, {
          guildId: playground.guildId,
          channelId,
          strategy,
          topic: 'launch code vault combination',
          focusUserId: playground.humanId,
          presentUserIds: [playground.humanId],
        });
        return { strategy, said: JSON.stringify(c) };
      }),
    );

  it(
    'says a secret in #dit-mod and one in a private channel; memory takes both in',
    async () => {
      await page.goto(playground.url);
      await page.waitForSelector('#live:has-text("live")');
      const mod = await page.waitForSelector('#channels button:has-text("dit-mod")', {
        timeout: 120_000,
      });
      modId = (await mod.getAttribute('data-channel'))!;
      expect(playground.discord.channels.get(modId)!.overwrites).toContainEqual(
        expect.objectContaining({ id: playground.guildId }),
      );

      // A chat channel made through the page, then made private through the local Discord's
      // hooks: @everyone may not view it; the human (the owner), the bot and Dit may.
      await page.fill('#nc-name', 'vault');
      await page.click('#new-channel button[type=submit]');
      await page.waitForSelector('#channel-title:has-text("#vault")');
      vaultId = [...playground.discord.channels.values()].find(
        (c) => c.guildId === playground.guildId && c.name === 'vault',
      )!.id;
      const view = String(Permission.ViewChannel | Permission.SendMessages);
      playground.discord.setOverwrites(vaultId, [
        { id: playground.guildId, type: 0, allow: '0', deny: String(Permission.ViewChannel) },
        { id: playground.discord.bot.id, type: 1, allow: view, deny: '0' },
        { id: playground.dit.userId, type: 1, allow: view, deny: '0' },
      ]);
      await say(modId, launch);
      await say(vaultId, vault);
      // The admin view (no forChannelId) sees both: memory has ingested them.
      for (const text of [launch, vault]) {
        await waitFor(
          async () => {
            const { hits } = await request<{ hits: { text: string }[] }>(Subjects.memory.search, {
              guildId: playground.guildId,
              query: text,
              layers: ['archive'],
            });
            return hits.some((h) => h.text === text);
          },
          120_000,
          250,
          `memory to ingest "${text}"`,
        );
      }
    },
    SLOW,
  );

  it(
    'in the public chat channel, no reply, context or memory skill tells either secret',
    async () => {
      const chat = playground.chatChannelId;
      await open(chat);
      await page.waitForSelector('#dormant:has-text("yes")', { timeout: 120_000 });
      // Asked of everyone: the demo agents answer, each with what memory found for #agents-chat.
      await say(chat, 'do you remember the launch code?');
      await page.waitForFunction(
        () =>
          document.querySelectorAll('#messages li[data-kind="agent"]:not([data-author="Dit"])')
            .length >= 3,
        undefined,
        { timeout: 120_000 },
      );
      await page.waitForSelector('#dormant:has-text("yes")', { timeout: 120_000 });
      // Asked of Dit by name: Dit answers, from what memory gives #agents-chat.
      const ditBefore = (await page.$$(dit)).length;
      await say(chat, 'Dit, do you remember the launch code?');
      await page.waitForFunction(
        ([sel, n]) => document.querySelectorAll(sel as string).length > (n as number),
        [dit, ditBefore] as const,
        { timeout: 120_000 },
      );
      expect((await page.$$eval(dit, (xs) => xs.map((x) => x.textContent))).pop() ?? '').toMatch(
        /\w/,
      );
      await page.waitForSelector('#dormant:has-text("yes")', { timeout: 120_000 });

      const inChat = await shown(chat);
      expect(inChat.some((t) => t.includes('do you remember the launch code'))).toBe(true);
      expect(inChat.filter((t) => LEAK.test(t))).toEqual([]);
      expect(
        playground.discord
          .channelMessages(chat)
          .map((m) => m.content)
          .filter((t) => LEAK.test(t)),
      ).toEqual([]);
      await page.screenshot({ path: artifact('playground-privacy-chat-1280x800.png') });

      // The memory skills, asked in #agents-chat, by the human who said the secrets.
      const skills = {
        memory_search: await skill(chat, 'memory_search', {
          query: 'launch code vault combination',
        }),
        memory_search_archive: await skill(chat, 'memory_search', {
          query: 'tangerine marmalade',
          layers: ['archive'],
        }),
        recall_user: await skill(chat, 'recall_user', { userId: playground.humanId }),
        summarize_window: await skill(chat, 'summarize_window', { minutes: 60 }),
        summarize_mod: await skill(chat, 'summarize_window', { channelId: modId, minutes: 60 }),
        summarize_vault: await skill(chat, 'summarize_window', { channelId: vaultId, minutes: 60 }),
      };
      expect(Object.entries(skills).filter(([, said]) => LEAK.test(said))).toEqual([]);
      // Every lens for #agents-chat.
      expect((await contexts(chat)).filter((c) => LEAK.test(c.said))).toEqual([]);

      // Not vacuous: in the private channel the same reads find its secret.
      expect(await skill(vaultId, 'memory_search', { query: 'vault combination' })).toContain(
        vault,
      );
      expect((await contexts(vaultId)).find((c) => c.strategy === 'live')!.said).toContain(vault);
    },
    SLOW,
  );

  it(
    'in the private channel, Dit asked the same recalls its secret',
    async () => {
      const reply = await askDit(vaultId, 'Dit, what is the vault combination?', 'marmalade-77');
      expect(await reply.textContent()).toContain('marmalade-77');
      await page.screenshot({
        path: artifact('playground-privacy-vault-1280x800.png'),
        fullPage: true,
      });
      // Still nothing of it in the public channel.
      expect((await shown(playground.chatChannelId)).filter((t) => LEAK.test(t))).toEqual([]);
    },
    SLOW,
  );
});
