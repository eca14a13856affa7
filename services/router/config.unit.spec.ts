import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '@dirigent/service-kit';
import { RouterConfig } from './config';

const base = { DATABASE_URL: 'postgres://x@127.0.0.1:5432/db' };

function yaml(content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'router-cfg-')), 'router.yaml');
  writeFileSync(path, content);
  return path;
}

const load = (content: string) =>
  loadConfig(RouterConfig, { ...base, DIRIGENT_ROUTER_CONFIG: yaml(content) });

describe('router configuration', () => {
  it('boots with one webhook agent and the defaults when no file is given', () => {
    const c = loadConfig(RouterConfig, base);
    expect(c.personas()).toEqual([expect.objectContaining({ id: 'dit', name: 'Dit' })]);
    expect(c.file.speculative).toMatchObject({ enabled: true, quietMs: 1_800_000, chance: 0.2 });
    expect(c.file.followups.enabled).toBe(true);
    expect(c.temperature).toBe(0.7);
  });

  it('reads agents, disposition upserts, speculative and follow-up settings and the orchestrator block', () => {
    const c = load(`
agents:
  - { id: dit, discordUserId: '123456789012345678', name: Dit, voices: [playful, sharp], bannedPhrases: [as an AI], weights: { roast-back: 0.5 } }
  - { id: molt, name: Molt, orchestrator: true }
dispositions:
  - { id: vibing, weight: 2 }
speculative: { enabled: false, quietMs: 1000 }
followups: { enabled: false }
orchestrator: { maxParallelAgents: 2 }
`);
    expect(c.personas()[0]).toMatchObject({
      discordUserId: '123456789012345678',
      voices: ['playful', 'sharp'],
      weights: { 'roast-back': 0.5 },
    });
    expect(c.personas()[1].orchestrator).toBe(true);
    expect(c.file.dispositions[0]).toMatchObject({ id: 'vibing', weight: 2 });
    expect(c.file.speculative).toMatchObject({
      enabled: false,
      quietMs: 1000,
      minSinceBotTurnMs: 3_600_000,
    });
    expect(c.file.followups.enabled).toBe(false);
    expect(c.file.orchestrator?.maxParallelAgents).toBe(2);
  });

  it.each([
    ['agents: []', /agents/],
    ['agents:\n  - { id: "no spaces" }', /agents\.0\.id/],
    ['agents:\n  - { id: dit, voices: [loud] }', /voices/],
    ['agents:\n  - { id: dit }\n  - { id: dit }', /duplicate id dit/],
    [
      'agents:\n  - { id: dit }\ndispositions:\n  - { id: vibing, voice: loud }',
      /dispositions\.0\.voice/,
    ],
    ['agents:\n  - { id: dit }\nspeculative: { chance: 2 }', /speculative\.chance/],
    ['agents: [', /DIRIGENT_ROUTER_CONFIG/],
  ])('refuses %j with one line naming the problem', (content, problem) => {
    expect(() => load(content)).toThrow(ConfigError);
    expect(() => load(content)).toThrow(problem);
  });

  it("reads the utility skills' settings: Open-Meteo by default, GIFs off, a checked zone", () => {
    const c = loadConfig(RouterConfig, base);
    expect(c.DIRIGENT_WEATHER_URL).toBe('https://api.open-meteo.com/v1/forecast');
    expect(c.DIRIGENT_GEOCODING_URL).toBe('https://geocoding-api.open-meteo.com/v1/search');
    expect(c.DIRIGENT_GIF_PROVIDER).toBeUndefined();
    expect(c.DIRIGENT_TIMEZONE).toBe('UTC');
    const set = loadConfig(RouterConfig, {
      ...base,
      DIRIGENT_TIMEZONE: 'Europe/Lisbon',
      DIRIGENT_GIF_PROVIDER: 'giphy',
      DIRIGENT_GIF_API_KEY: 'k',
    });
    expect([set.DIRIGENT_TIMEZONE, set.DIRIGENT_GIF_PROVIDER]).toEqual(['Europe/Lisbon', 'giphy']);
    const bad = (env: Record<string, string>) => () =>
      loadConfig(RouterConfig, { ...base, ...env });
    expect(bad({ DIRIGENT_TIMEZONE: 'Mars/Olympus' })).toThrow(/DIRIGENT_TIMEZONE/);
    expect(bad({ DIRIGENT_GIF_PROVIDER: 'myspace' })).toThrow(/DIRIGENT_GIF_PROVIDER/);
    expect(bad({ DIRIGENT_WEATHER_URL: 'not a url' })).toThrow(/DIRIGENT_WEATHER_URL/);
  });
});
