import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Subjects, type RouterDecision } from '@dirigent/contracts';
import type { FakeChannel } from '@dirigent/discord-fake';
import { CANONICAL_DISPOSITIONS } from '@dirigent/router-domain';
import { startServiceApp } from '@dirigent/service-kit';
import { testDatabaseUrl, testNatsUrl, waitFor } from '@dirigent/testing';
import { startHarness, newChannel, type Harness } from '../../../discord-ingest/test/harness';
import { startGateway, type RunningGateway } from '../../../llm-gateway/test/harness';
import { ScriptedUpstream, type ScriptedAnswer } from '../../orchestrator/test/scripted-upstream';
import { RouterService } from '../../router.module';
import { FakeProviders } from './fake-providers';

function gatewayConfig(scripted: ScriptedUpstream) {
  const model = {
    id: 'synth',
    provider: 'scripted',
    upstream: 'synth-up',
    inputUsdPerMTok: 1,
    outputUsdPerMTok: 2,
    contextWindow: 128000,
  };
  const one = { model: 'synth', fallbacks: [] };
  return {
    providers: [{ id: 'scripted', kind: 'openai', baseUrl: scripted.baseUrl }],
    models: [model],
    purposes: Object.fromEntries(
      [
        'synth-low',
        'synth-mid',
        'synth-high',
        'subagent-research',
        'router-classify',
        'agent',
        'orchestrate',
      ].map((p) => [p, one]),
    ),
    budgets: { defaultGuildUsdPerDay: 100 },
    reliability: { timeoutMs: 10000, retries: 0 },
  };
}

/**
 * The utility skills through the real skill loop: the synthesizer (a scripted
 * OpenAI-compatible model through the real gateway) calls each tool, the router runs it
 * against local fakes of Open-Meteo and Tenor at the wire, the result goes back to the
 * model and is recorded on the decision; a reminder is posted by the real ingest in the
 * local Discord when due, mentioning the member who asked.
 */
describe('utility skills through the skill loop', () => {
  let h: Harness;
  let scripted: ScriptedUpstream;
  let providers: FakeProviders;
  let gateway: RunningGateway;
  let router: INestApplication;
  let channel: FakeChannel;
  const decisions: RouterDecision[] = [];
  const request = async (subject: string, data: unknown): Promise<any> =>
    h.nats.request<any>(subject, data, 20_000);

  beforeAll(async () => {
    h = await startHarness();
    channel = newChannel(h, 'utility');
    scripted = await ScriptedUpstream.start();
    providers = await FakeProviders.start();
    gateway = await startGateway(gatewayConfig(scripted));
    const dir = mkdtempSync(join(tmpdir(), 'router-utility-'));
    writeFileSync(
      join(dir, 'router.yaml'),
      'agents:\n  - { id: dit, name: Dit }\nspeculative: { enabled: false }\nfollowups: { enabled: false }\n',
    );
    ({ app: router } = await startServiceApp(RouterService, {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      LOG_LEVEL: 'silent',
      ROUTER_PORT: '0',
      DIRIGENT_ROUTER_CONFIG: join(dir, 'router.yaml'),
      DIRIGENT_WORKSPACE: dir,
      DIRIGENT_GEOCODING_URL: `${providers.baseUrl}/v1/search`,
      DIRIGENT_WEATHER_URL: `${providers.baseUrl}/v1/forecast`,
      DIRIGENT_UTILITY_TIMEOUT_MS: '300',
      DIRIGENT_GIF_PROVIDER: 'tenor',
      DIRIGENT_GIF_API_KEY: 'tenor-test-key',
      DIRIGENT_GIF_URL: `${providers.baseUrl}/v2/search`,
      DIRIGENT_TIMEZONE: 'Europe/Lisbon',
    }));
    h.nats.client.nc.subscribe(Subjects.router.decisionAll, {
      callback: (_e, m) => void decisions.push(m.json<{ data: RouterDecision }>().data),
    });
    for (const d of CANONICAL_DISPOSITIONS) {
      const r = await request(Subjects.admin.dispositionUpsert, {
        id: d.id,
        weight: d.id === 'quick-react' ? 1 : 0,
      });
      expect(r.ok).toBe(true);
    }
  });

  afterAll(async () => {
    await router?.close();
    await gateway?.close();
    await scripted?.close();
    await providers?.close();
    await h?.stop();
  });

  const replied = new Set<string>();

  /** Alice asks Dit; the model calls `tool` with `args` and says `said: <what it read>`. */
  async function ask(content: string, tool: string, args: Record<string, unknown>) {
    scripted.script = (body): ScriptedAnswer => {
      if (!body.tools) return { content: 'research notes' };
      const result = body.messages.find((m: any) => m.role === 'tool');
      if (!result) return { toolCalls: [{ name: tool, arguments: args }] };
      return { content: `said: ${result.content}` };
    };
    const asked = h.discord.postMessage({ channelId: channel.id, authorId: h.alice.id, content });
    const d = await waitFor(
      () => decisions.find((x) => x.inboundMessageId === asked.id),
      60_000,
      50,
      'decision',
    );
    expect(d.toolCalls).toHaveLength(1);
    const call = d.toolCalls![0];
    const reply = await waitFor(
      () =>
        h.discord
          .channelMessages(channel.id)
          .find((m) => m.content.startsWith('said: ') && !replied.has(m.id)),
      60_000,
      50,
      'the reply',
    );
    replied.add(reply.id);
    return { call, reply: JSON.parse(reply.content.slice('said: '.length)) };
  }

  it('defines a word from the bundled dictionary', async () => {
    const { call, reply } = await ask('dit, define zymurgy', 'define', { term: 'zymurgy' });
    expect(call).toMatchObject({ skillId: 'define', status: 'done' });
    expect(reply.result).toEqual({
      term: 'zymurgy',
      definitions: [{ partOfSpeech: 'noun', text: expect.stringContaining('fermentation') }],
    });
  });

  it('tells the weather from Open-Meteo at the wire, politely when it times out', async () => {
    const { reply } = await ask("dit, what's the weather in Lisbon?", 'weather', {
      place: 'Lisbon',
    });
    expect(reply.result).toEqual({
      place: 'Lisbon, Portugal',
      current: { tempC: 17.8, description: 'partly cloudy' },
      days: [
        { date: '2026-03-27', minC: 11.4, maxC: 19.2, description: 'partly cloudy' },
        { date: '2026-03-28', minC: 10.9, maxC: 16.1, description: 'slight rain' },
        { date: '2026-03-29', minC: 12.3, maxC: 21, description: 'clear sky' },
      ],
    });
    const forecast = providers.seen.find((u) => u.pathname === '/v1/forecast')!;
    expect(Object.fromEntries(forecast.searchParams)).toEqual(
      expect.objectContaining({
        latitude: '38.71667',
        longitude: '-9.13333',
        current: 'temperature_2m,weather_code',
        daily: 'weather_code,temperature_2m_max,temperature_2m_min',
      }),
    );

    const slow = await ask('dit, weather in Slowtown?', 'weather', { place: 'Slowtown' });
    expect(slow.call.status).toBe('done');
    expect(slow.reply.result).toEqual({
      place: 'Slowtown',
      status: 'unavailable',
      note: expect.stringContaining('try again'),
    });
    const nowhere = await ask('dit, weather in Atlantis?', 'weather', { place: 'Atlantis' });
    expect(nowhere.reply.result).toMatchObject({ status: 'not_found' });
  });

  it('finds a GIF through the configured provider and key', async () => {
    const { reply } = await ask('dit, send a gif of a happy cat', 'gif', { query: 'happy cat' });
    expect(reply.result).toEqual({ url: 'https://media.example/happy cat.gif' });
    const searched = providers.seen.find((u) => u.pathname === '/v2/search')!;
    expect(searched.searchParams.get('key')).toBe('tenor-test-key');
    expect(searched.searchParams.get('q')).toBe('happy cat');
  });

  it('converts a time between zones', async () => {
    const { reply } = await ask('dit, 7pm Lisbon in Tokyo?', 'time', {
      text: '7pm Lisbon in Tokyo',
    });
    expect(reply.result.result).toMatch(/^19:00 in Lisbon is .*0[34]:00 in Tokyo\.$/);
  });

  it('sets a reminder for the member who asked, lists it, posts it when due', async () => {
    const later = await ask('dit, remind me in 2 hours to water the beds', 'remind', {
      when: 'in 2 hours',
      text: 'water the beds',
      target: 'me',
    });
    const { reminderId } = later.reply.result;
    const mine = await request(Subjects.router.remindersList, {
      guildId: h.guild.id,
      userId: h.alice.id,
    });
    expect(mine.data.reminders).toEqual([
      expect.objectContaining({ reminderId, userId: h.alice.id, text: 'water the beds' }),
    ]);
    expect(await request(Subjects.router.reminderCancel, { reminderId })).toMatchObject({
      ok: true,
      data: { reminderId, status: 'cancelled' },
    });

    const soon = await ask('dit, remind us in 3 seconds to start the call', 'remind', {
      when: 'in 3 seconds',
      text: 'start the call',
      target: 'channel',
    });
    expect(soon.reply.result).toMatchObject({ target: 'channel', text: 'start the call' });
    await waitFor(
      () =>
        h.discord
          .channelMessages(channel.id)
          .find((m) => m.content === '⏰ Reminder for this channel: start the call'),
      60_000,
      100,
      'the reminder posted',
    );
    expect(
      (await request(Subjects.router.remindersList, { guildId: h.guild.id })).data.reminders,
    ).toEqual([]);
  });
});
