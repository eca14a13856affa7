/// <reference lib="dom" />
import type { INestApplication } from '@nestjs/common';
import type { Browser, Page } from 'playwright-core';
import { Subjects, subject, type RouterDecision } from '@dirigent/contracts';
import { FakeDiscord as LocalDiscord } from '@dirigent/discord-fake';
import { snowflake, uid, waitFor } from '@dirigent/testing';
import { serveFakeGuilds } from '../../libs/playground/src';
import { startRouterStack, type RouterStack } from '../../services/router/test/harness';
import { artifact, launchChromium, startCoordinator, stopAll } from './support';

const TOKEN = `learning-${uid('tok')}-0123456789`;
const D = 'factual-recall';

// Dit speaks through a fake upstream; only `factual-recall` (deadpan) may answer a mention.
const yaml = `
agents:
  - id: dit
    name: Dit
    voices: [deadpan]
    learning: { rate: 0.1, bounds: [0.5, 2] }
speculative: { enabled: false }
followups: { enabled: false }
`;

/**
 * The control page's learning tab in Chromium: members' reactions to Dit's turns become
 * learning steps through the real router, the tab shows the engagement percentages and the
 * learned weight as a chart, the what-if replay counts the decisions candidate weights
 * change (bad input answered beside its field), and Save weights writes the persona.
 */
describe('control page: learning tab in Chromium', () => {
  let s: RouterStack;
  let local: LocalDiscord;
  let coordinator: INestApplication | undefined;
  let base: string;
  let browser: Browser;
  let page: Page;
  const g = snowflake();
  let cls: string;

  const ok = async <T>(subj: string, data: unknown): Promise<T> => {
    const r = await s.request(subj, data);
    if (!r.ok) throw new Error(`${subj}: ${JSON.stringify(r.error)}`);
    return r.data as T;
  };
  const steps = () =>
    s.events.filter((e) => e.subject === subject.learningAdjusted(g)).map((e) => e.data);
  const turn = async () => {
    const channel = snowflake();
    await s.discord.human(g, channel, 'dit, what is the answer?');
    const d: RouterDecision = await waitFor(() => s.decisions(channel)[0], 30_000);
    const echo = await waitFor(() => s.discord.echoes.find((e) => e.channelId === channel), 30_000);
    return { d, channel, messageId: echo.messageId as string };
  };
  /** A member's reaction, again until its step is seen (the message's origin may lag its echo). */
  const react = async (t: { channel: string; messageId: string }, emoji: string) => {
    const userId = snowflake();
    const before = steps().length;
    await waitFor(async () => {
      await s.messaging.publishEvent(
        subject.discordEvent(g, t.channel, 'reaction.added'),
        'reaction.added',
        { guildId: g, channelId: t.channel, messageId: t.messageId, userId, emoji },
      );
      return steps().length > before;
    }, 30_000);
  };

  beforeAll(async () => {
    s = await startRouterStack(yaml);
    s.upstream.behave = () => ({ kind: 'ok', text: 'forty-two' });
    local = await LocalDiscord.start({ token: uid('discord-token') });
    local.createGuild({ id: g, name: `learning-e2e-${g.slice(-4)}` });
    serveFakeGuilds(s.messaging, local);
    const started = await startCoordinator({ DIRIGENT_CONTROL_TOKEN: TOKEN });
    coordinator = started.app;
    base = `http://127.0.0.1:${started.port}`;

    const liked = await turn();
    const disliked = await turn();
    await turn(); // nobody says anything to the third
    cls = liked.d.inputs!.contextClass!;
    await react(liked, '👍');
    await react(liked, '😂');
    await react(disliked, '👎');

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${base}/dirigent`);
    await page.fill('#token', TOKEN);
    await Promise.all([page.waitForURL(`${base}/dirigent`), page.click('button[type=submit]')]);
  });

  afterAll(async () => {
    await browser?.close();
    await stopAll([coordinator]);
    await local?.stop();
    await s?.close();
  });

  it('serves nothing of it without the token', async () => {
    const tab = await fetch(`${base}/dirigent?tab=learning&guild=${g}&agent=dit`);
    expect(tab.status).toBe(401);
    expect(await tab.text()).not.toContain(g);
    for (const path of ['/dirigent/api/learning/whatif', '/dirigent/api/personas/dit/weights']) {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ guildId: g, last: 5, weights: { [D]: 0 } }),
      });
      expect([path, res.status]).toEqual([path, 401]);
    }
  });

  it('shows engagement by mood and the learned weight over time as a chart', async () => {
    expect(steps()).toHaveLength(3);
    await page.click('#tab-learning');
    await page.waitForSelector('#h-learning');
    expect(await page.inputValue('#f-guild')).toBe(g);
    const row = `#engagement tr[data-class="${cls}"][data-disposition="${D}"]`;
    expect(await page.textContent(`${row} [data-field="posts"]`)).toBe('3');
    expect(await page.textContent(`${row} [data-field="engaged"]`)).toBe('33%');
    expect(await page.textContent(`${row} [data-field="negative"]`)).toBe('33%');
    expect(await page.textContent(`${row} [data-field="ignored"]`)).toBe('0%');
    expect(await page.textContent(`${row} [data-field="signals"]`)).toBe('reaction 3');
    // +0.1, +0.1, −0.1 from 1: the weight learning left is 1.1.
    expect(await page.textContent(`${row} [data-field="weight"]`)).toBe('1.100');
    const line = `#learning-chart-${cls} g[data-disposition="${D}"]`;
    await page.waitForSelector(`${line} polyline`);
    // The weight before the first step and one dot per step.
    expect(await page.$$eval(`${line} circle`, (c) => c.length)).toBe(4);
    expect(await page.textContent(`${line} circle:last-of-type title`)).toContain('1.100');
  });

  it('answers bad what-if input beside its field, then counts the decisions weights change', async () => {
    expect(await page.inputValue(`#w-${D}`)).toBe('1');
    await page.fill(`#w-${D}`, 'lots');
    await page.fill('#whatif-last', '0');
    await page.click('button[data-action="whatif-run"]');
    // Every bad field at once, each beside its input.
    await page.waitForSelector(`#err-w-${D}:has-text("must be a number from 0 to 1000")`);
    await page.waitForSelector('#err-whatif-last:has-text("last")');
    expect(await page.textContent('#whatif-result')).toBe('');

    await page.fill(`#w-${D}`, '0');
    await page.fill('#whatif-last', '50');
    await page.click('button[data-action="whatif-run"]');
    await page.waitForSelector('#whatif-changed');
    const changed = Number(await page.getAttribute('#whatif-changed', 'data-changed'));
    expect(changed).toBeGreaterThanOrEqual(3);
    const before = await page.textContent(
      `#whatif-result tr[data-disposition="${D}"] [data-field="before"]`,
    );
    const after = await page.textContent(
      `#whatif-result tr[data-disposition="${D}"] [data-field="after"]`,
    );
    expect([Number(before) >= 3, after]).toEqual([true, '0']);
    await page.screenshot({ path: artifact('control-learning-1280x800.png'), fullPage: true });
  });

  it('saves the candidate weights as the persona’s next version', async () => {
    const { version } = await ok<{ version: number }>(Subjects.admin.personaGet, {
      agentId: 'dit',
    });
    await page.fill(`#w-${D}`, '0.7');
    await page.click('button[data-action="whatif-save"]');
    await page.waitForSelector(`#whatif-saved:has-text("Saved as version ${version + 1}")`);
    const now = await ok<{ version: number; dispositionWeights: Record<string, number> }>(
      Subjects.admin.personaGet,
      { agentId: 'dit' },
    );
    // Only the weight that differs from the persona's is written.
    expect([now.version, now.dispositionWeights]).toEqual([version + 1, { [D]: 0.7 }]);
    await page.click('button[data-action="whatif-save"]');
    await page.waitForSelector('#whatif-saved:has-text("No weight differs")');
  });

  it('is usable at 390×844', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/dirigent?tab=learning&guild=${g}&agent=dit`);
    await page.waitForSelector(`#learning-chart-${cls}`);
    const wide = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(wide).toBeLessThanOrEqual(0);
    await page.screenshot({ path: artifact('control-learning-390x844.png'), fullPage: true });
  });
});
