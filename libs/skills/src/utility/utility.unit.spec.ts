import { SkillRunner, type SkillCall } from '../registry';
import type { DiscordActions, ReminderRequest, SkillMemory } from '../types';
import { WordNetDictionary } from './dictionary';
import { ProviderUnavailable } from './http';
import { convertTime } from './time-convert';
import { weatherWords } from './weather';
import { parseWhen } from './when';
import { offsetMinutes, zonedInstant, zoneOf } from './zones';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('parseWhen (the message time as now)', () => {
  // A Friday, 10:00 in Lisbon (UTC+0 until Sunday's switch to summer time).
  const now = at('2026-03-27T10:00:00Z');

  it('reads relative times and keeps the rest of the text', () => {
    const w = parseWhen('in 2 hours to water the beds', now, 'Europe/Lisbon');
    expect(w).toEqual({
      dueAt: at('2026-03-27T12:00:00Z'),
      phrase: 'in 2 hours',
      rest: 'to water the beds',
    });
    expect(parseWhen('in a minute', now, 'UTC')).toMatchObject({ dueAt: now + 60_000 });
  });

  it('reads weekdays and tomorrow as wall-clock times in the zone, DST of that day', () => {
    expect(iso((parseWhen('Friday 18:00', now, 'Europe/Lisbon') as any).dueAt)).toBe(
      '2026-03-27T18:00:00.000Z',
    );
    // Sunday 29 March: Lisbon is on summer time (UTC+1) from 01:00 UTC.
    expect(iso((parseWhen('Sunday 18:00', now, 'Europe/Lisbon') as any).dueAt)).toBe(
      '2026-03-29T17:00:00.000Z',
    );
    expect(iso((parseWhen('tomorrow 9am', now, 'America/New_York') as any).dueAt)).toBe(
      '2026-03-28T13:00:00.000Z',
    );
  });

  it('gives the same instant for the same text and now', () => {
    expect(parseWhen('next monday at noon', now, 'Asia/Tokyo')).toEqual(
      parseWhen('next monday at noon', now, 'Asia/Tokyo'),
    );
  });

  it('refuses no time and times past', () => {
    expect(parseWhen('water the beds', now, 'UTC')).toEqual({
      error: expect.stringContaining('cannot read a time'),
    });
    expect(parseWhen('yesterday at 5pm', now, 'UTC')).toEqual({
      error: expect.stringContaining('not in the future'),
    });
  });
});

describe('zones', () => {
  it('finds zones of cities, IANA names and aliases', () => {
    expect(zoneOf('Lisbon')).toEqual({ name: 'Lisbon', timeZone: 'Europe/Lisbon' });
    expect(zoneOf('tokyo')?.timeZone).toBe('Asia/Tokyo');
    expect(zoneOf('New York')?.timeZone).toBe('America/New_York');
    expect(zoneOf('Europe/Berlin')?.timeZone).toBe('Europe/Berlin');
    expect(zoneOf('GMT')?.timeZone).toBe('UTC');
    expect(zoneOf('Narnia')).toBeNull();
  });

  it('maps wall-clock times to instants across DST changes', () => {
    expect(offsetMinutes(at('2026-07-01T00:00:00Z'), 'Europe/Lisbon')).toBe(60);
    expect(offsetMinutes(at('2026-01-01T00:00:00Z'), 'Europe/Lisbon')).toBe(0);
    const wc = (day: number, month: number, hour: number, minute = 0) => ({
      year: 2026,
      month,
      day,
      hour,
      minute,
    });
    expect(iso(zonedInstant(wc(29, 3, 18), 'Europe/Lisbon'))).toBe('2026-03-29T17:00:00.000Z');
    // 01:30 does not exist that night (01:00 → 02:00): read with the offset before the jump.
    expect(iso(zonedInstant(wc(29, 3, 1, 30), 'Europe/Lisbon'))).toBe('2026-03-29T01:30:00.000Z');
    // 01:30 happens twice on 25 October: the first one (summer time).
    expect(iso(zonedInstant(wc(25, 10, 1, 30), 'Europe/Lisbon'))).toBe('2026-10-25T00:30:00.000Z');
    expect(iso(zonedInstant(wc(1, 7, 9), 'America/Los_Angeles'))).toBe('2026-07-01T16:00:00.000Z');
  });
});

describe('convertTime', () => {
  const summer = at('2026-07-01T10:00:00Z');
  const winter = at('2026-01-15T10:00:00Z');

  it('converts a time between places, naming the other day when it changes', () => {
    expect(convertTime('7pm Lisbon in Tokyo', summer, 'UTC')).toEqual({
      result: '19:00 in Lisbon is Thu 2 Jul, 03:00 in Tokyo.',
    });
    expect(convertTime('7pm Lisbon in Tokyo', winter, 'UTC')).toEqual({
      result: '19:00 in Lisbon is Fri 16 Jan, 04:00 in Tokyo.',
    });
    expect(convertTime('18:30 New York to London', summer, 'UTC')).toEqual({
      result: '18:30 in New York is 23:30 in London.',
    });
  });

  it('tells the time somewhere now, and reads a bare time in the home zone', () => {
    expect(convertTime('what time is it in Tokyo?', summer, 'UTC')).toEqual({
      result: "It's Wed 1 Jul, 19:00 in Tokyo now.",
    });
    expect(convertTime('noon in Sydney', summer, 'Europe/Lisbon')).toEqual({
      result: '12:00 in Europe/Lisbon is 21:00 in Sydney.',
    });
  });

  it('says which place it does not know', () => {
    expect(convertTime('9am Narnia to Tokyo', summer, 'UTC')).toEqual({
      error: expect.stringContaining('"Narnia"'),
    });
  });
});

describe('WordNetDictionary', () => {
  const dict = new WordNetDictionary();

  it('defines words by part of speech, base forms of inflected words too', () => {
    const dog = dict.define('dog');
    expect(dog[0]).toEqual({
      partOfSpeech: 'noun',
      text: expect.stringContaining('member of the genus Canis'),
    });
    expect(dict.define('running').some((d) => d.partOfSpeech === 'verb')).toBe(true);
    expect(dict.define('happiest')[0].partOfSpeech).toBe('adjective');
    expect(dict.define('Raised Bed').length + dict.define('zymurgy').length).toBeGreaterThan(0);
  });

  it('knows nothing of made-up words', () => {
    expect(dict.define('flurbleglop')).toEqual([]);
    expect(dict.define('')).toEqual([]);
  });
});

describe('utility skills through the runner', () => {
  const discord = {} as DiscordActions;
  const memory = {} as SkillMemory;
  const scheduled: ReminderRequest[] = [];
  const base: Omit<SkillCall, 'skillId' | 'tool' | 'args'> = {
    guildId: '100000000000000001',
    channelId: '200000000000000001',
    actor: { agentId: 'dit' },
    askedBy: '300000000000000001',
    seed: 's',
    callId: 'tool-abc',
    now: at('2026-03-27T10:00:00Z'),
  };
  const run = (
    runner: SkillRunner,
    skillId: string,
    args: unknown,
    extra: Partial<SkillCall> = {},
  ) => runner.invoke({ ...base, skillId, tool: skillId, args, ...extra });
  const none = { request: async () => ({ proposalId: 'p' }) };
  const off = new SkillRunner({ discord, memory }, none);
  const on = new SkillRunner(
    {
      discord,
      memory,
      utility: {
        timeZone: 'Europe/Lisbon',
        reminders: { schedule: async (r) => void scheduled.push(r) },
        weather: {
          forecast: async (place) => {
            if (place === 'Atlantis') return null;
            if (place === 'Slowtown') throw new ProviderUnavailable('weather', 'timeout', 'late');
            return {
              place,
              current: { tempC: 18.5, description: weatherWords(2) },
              days: [{ date: '2026-03-27', minC: 11, maxC: 19, description: weatherWords(61) }],
            };
          },
        },
        gif: { search: async (q) => (q === 'nothing' ? null : `https://gifs.example/${q}.gif`) },
      },
    },
    none,
  );

  it('defines, converts time and refuses bad arguments by field', async () => {
    expect(await run(off, 'define', { term: 'zymurgy' })).toEqual({
      status: 'done',
      result: { term: 'zymurgy', definitions: [expect.objectContaining({ partOfSpeech: 'noun' })] },
    });
    expect(await run(off, 'define', { term: 'flurbleglop' })).toEqual({
      status: 'done',
      result: expect.objectContaining({ definitions: [], note: expect.stringContaining('sorry') }),
    });
    await expect(run(off, 'define', { word: 'x' })).rejects.toThrow(/args/);
    expect(await run(on, 'time', { text: '7pm Lisbon in Tokyo' })).toEqual({
      status: 'done',
      result: { result: '19:00 in Lisbon is Sat 28 Mar, 04:00 in Tokyo.' },
    });
    await expect(run(on, 'time', { text: '7pm Narnia in Tokyo' })).rejects.toThrow(/^args\.text/);
  });

  it('answers the weather, politely when the provider is away or the place unknown', async () => {
    expect(await run(on, 'weather', { place: 'Lisbon' })).toEqual({
      status: 'done',
      result: expect.objectContaining({
        place: 'Lisbon',
        current: { tempC: 18.5, description: 'partly cloudy' },
      }),
    });
    expect((await run(on, 'weather', { place: 'Slowtown' })) as any).toMatchObject({
      result: { status: 'unavailable', note: expect.stringContaining('try again') },
    });
    expect((await run(on, 'weather', { place: 'Atlantis' })) as any).toMatchObject({
      result: { status: 'not_found' },
    });
    expect((await run(off, 'weather', { place: 'Lisbon' })) as any).toMatchObject({
      result: { status: 'refused' },
    });
  });

  it('finds a GIF with a provider and says it is off without one', async () => {
    expect(await run(on, 'gif', { query: 'cat' })).toEqual({
      status: 'done',
      result: { url: 'https://gifs.example/cat.gif' },
    });
    expect((await run(off, 'gif', { query: 'cat' })) as any).toMatchObject({
      result: { status: 'refused', reason: expect.stringContaining('no GIF provider') },
    });
  });

  it('schedules a reminder with a stable id, for the member who asked', async () => {
    const out = (await run(on, 'remind', {
      when: 'in 2 hours',
      text: 'water the beds',
      target: 'me',
    })) as any;
    expect(out.result).toEqual({
      reminderId: expect.stringMatching(/^rem-[0-9a-f]{24}$/),
      dueAt: '2026-03-27T12:00:00.000Z',
      target: 'me',
      text: 'water the beds',
    });
    expect(scheduled.at(-1)).toMatchObject({
      reminderId: out.result.reminderId,
      userId: base.askedBy,
      channelId: base.channelId,
    });
    const again = (await run(on, 'remind', { when: 'in 2 hours', text: 'water the beds' })) as any;
    expect(again.result.reminderId).toBe(out.result.reminderId);
    const channel = (await run(
      on,
      'remind',
      {
        when: 'Sunday 18:00 to bring the seeds',
        target: 'channel',
      },
      { callId: 'tool-def' },
    )) as any;
    expect(channel.result).toMatchObject({
      dueAt: '2026-03-29T17:00:00.000Z',
      text: 'bring the seeds',
      target: 'channel',
    });
    await expect(run(on, 'remind', { when: 'someday' })).rejects.toThrow(/^args\.when/);
    await expect(
      run(on, 'remind', { when: 'in 1 hour', target: 'me' }, { askedBy: undefined }),
    ).rejects.toThrow(/^args\.target/);
    await expect(run(off, 'remind', { when: 'in 1 hour' })).rejects.toThrow(/not kept/);
  });
});
