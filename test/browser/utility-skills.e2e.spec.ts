/// <reference lib="dom" />
import type { INestApplication } from '@nestjs/common';
import type { Browser, Page } from 'playwright-core';
import { SettableClock } from '@dirigent/service-kit';
import type { Playground } from '../../libs/playground/src';
import { FakeProviders } from '../../services/router/skills/test/fake-providers';
import { artifact, launchChromium, startPlaygroundStack, stopAll } from './support';

/** A few turns of the whole guild (the demo agents answer too) on a shared machine. */
const SLOW = 300_000;
/** What no reply may show: a prompt's scaffolding, an error, a raw mention. */
const SCAFFOLDING = /## |\[offline|answer:|NO_REPLY|Error|<@!?\d+>|\bat .*\.js:\d+/;
/** A whole sentence (or several): it begins with a capital, a digit or an emoji and ends as one. */
const WHOLE = /^[\p{Lu}\d\p{Extended_Pictographic}*][\s\S]*[.!?]$/u;

/**
 * Dit's utility skills in the playground, in Chromium, with the offline model: a definition
 * from the shipped dictionary, a reminder "in a minute" that arrives in the page (the
 * router's clock moved a minute on, its durable timer fires at once), a time-zone
 * conversion and the weather from Open-Meteo's APIs answered by a local fake at the wire.
 */
describe('playground: Dit answers utility requests in whole sentences, in Chromium', () => {
  let playground: Playground;
  let providers: FakeProviders;
  let apps: INestApplication[] = [];
  const clock = new SettableClock();
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    providers = await FakeProviders.start();
    ({ playground, apps } = await startPlaygroundStack({
      routerEnv: {
        DIRIGENT_GEOCODING_URL: `${providers.baseUrl}/v1/search`,
        DIRIGENT_WEATHER_URL: `${providers.baseUrl}/v1/forecast`,
      },
      clock,
    }));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(playground.url);
    await page.waitForSelector('#live:has-text("live")');
  });

  afterAll(async () => {
    await browser?.close();
    await stopAll(apps);
    await playground?.stop();
    await providers?.close();
    apps = [];
  });

  const dit = '#messages li[data-kind="agent"][data-author="Dit"]';
  /** Asks Dit in the chat channel; resolves with the text of Dit's message that has `said`. */
  const askDit = async (text: string, said: string): Promise<string> => {
    await page.click(`#channels button[data-channel="${playground.chatChannelId}"]`);
    await page.fill('#content', text);
    await page.press('#content', 'Enter');
    try {
      const li = await page.waitForSelector(`${dit}:has-text("${said}")`, { timeout: 90_000 });
      return ((await li.$eval('.content', (c) => c.textContent)) ?? '').trim();
    } catch (e) {
      const texts = await page.$$eval(dit, (xs) => xs.map((x) => x.textContent));
      const chosen = await page.$$eval('#decisions li', (xs) => xs.map((x) => x.textContent));
      throw new Error(
        `${(e as Error).message}\nDit said: ${JSON.stringify(texts)}\ndecisions: ${JSON.stringify(chosen)}`,
      );
    }
  };
  const sentence = (text: string) => {
    expect(text).toMatch(WHOLE);
    expect(text).not.toMatch(SCAFFOLDING);
  };

  it(
    'defines a word from the dictionary it ships with',
    async () => {
      const said = await askDit('Dit, define compost', 'compost: (');
      expect(said).toMatch(/^compost: \(noun\) [a-z].*\.$/);
      sentence(said.replace(/^compost/, 'Compost'));
    },
    SLOW,
  );

  it(
    'takes a reminder for in a minute, and the reminder arrives, naming the member',
    async () => {
      const said = await askDit('Dit, remind me in a minute to water the beds', "I'll remind you");
      expect(said).toMatch(/^⏰ Okay, I'll remind you on .+ at \d\d:\d\d UTC: water the beds\.$/);
      sentence(said);
      // A minute on, by the router's clock: its durable timer is due and fires.
      clock.advance(61_000);
      const arrived = await page.waitForSelector(
        '#messages li:has-text("you asked me to remind you: water the beds")',
        { timeout: 60_000 },
      );
      const text = ((await arrived.$eval('.content', (c) => c.textContent)) ?? '').trim();
      // The mention as Discord shows it: @ and the member's display name, not `<@id>`.
      expect(text).toBe('⏰ @You (human), you asked me to remind you: water the beds');
      expect(
        playground.discord.channelMessages(playground.chatChannelId).map((m) => m.content),
      ).toContain(`⏰ <@${playground.humanId}>, you asked me to remind you: water the beds`);
    },
    SLOW,
  );

  it(
    'converts 7pm Lisbon into Tokyo time',
    async () => {
      const said = await askDit('Dit, what is 7pm Lisbon in Tokyo?', '19:00 in Lisbon is');
      // The next day in Tokyo (UTC+9; Lisbon is UTC+0 in winter, +1 in summer).
      expect(said).toMatch(/^19:00 in Lisbon is \w{3} \d{1,2} \w{3}, 0[34]:00 in Tokyo\.$/);
      sentence(said);
    },
    SLOW,
  );

  it(
    'tells the weather from the configured provider',
    async () => {
      const said = await askDit("Dit, what's the weather in Lisbon?", "it's 17.8 °C");
      expect(said).toMatch(/^In Lisbon, Portugal it's 17\.8 °C with partly cloudy right now\./);
      sentence(said);
      const asked = providers.seen.map((u) => u.pathname);
      expect(asked).toEqual(expect.arrayContaining(['/v1/search', '/v1/forecast']));
      await page.screenshot({ path: artifact('playground-utility-1280x800.png'), fullPage: true });
    },
    SLOW,
  );
});
