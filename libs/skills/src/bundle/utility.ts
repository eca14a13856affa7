import { createHash } from 'node:crypto';
import { SkillError, type Skill, type SkillContext } from '../types';
import { WordNetDictionary } from '../utility/dictionary';
import { ProviderUnavailable } from '../utility/http';
import { convertTime } from '../utility/time-convert';
import { parseWhen } from '../utility/when';

/** Reminders further out than this are refused (a year). */
export const REMIND_MAX_AHEAD_MS = 366 * 86_400_000;

const text = (min: number, max: number) => ({ type: 'string', minLength: min, maxLength: max });
const zoneOf = (ctx: SkillContext) => ctx.ports.utility?.timeZone ?? 'UTC';

/** One dictionary per process, read lazily on its first look-up. */
let wordnet: WordNetDictionary | undefined;

export const define: Skill = {
  id: 'define',
  description: 'Looks a word up in the bundled English dictionary (WordNet; no network).',
  catalogEntry: 'define: definitions of an English word or phrase (term)',
  permissions: [],
  discordPermissions: [],
  costClass: 'direct',
  tools: [
    {
      name: 'define',
      description:
        'Define an English word or short phrase from the bundled dictionary. Returns its senses by part of speech.',
      parameters: {
        type: 'object',
        properties: { term: text(1, 80) },
        required: ['term'],
        additionalProperties: false,
      },
    },
  ],
  async invoke(ctx) {
    const term = String(ctx.args.term).trim();
    const dictionary = ctx.ports.utility?.dictionary ?? (wordnet ??= new WordNetDictionary());
    const definitions = dictionary.define(term);
    if (!definitions.length)
      return { term, definitions, note: `"${term}" is not in my dictionary, sorry.` };
    return { term, definitions };
  },
};

export const weather: Skill = {
  id: 'weather',
  description: "A place's current weather and a short forecast (Open-Meteo by default).",
  catalogEntry: 'weather: current weather and a 3-day forecast for a place (place)',
  permissions: [],
  discordPermissions: [],
  costClass: 'direct',
  tools: [
    {
      name: 'weather',
      description:
        'Current weather and a short daily forecast (°C) for a city or place, e.g. "Lisbon".',
      parameters: {
        type: 'object',
        properties: { place: text(1, 100) },
        required: ['place'],
        additionalProperties: false,
      },
    },
  ],
  async invoke(ctx) {
    const place = String(ctx.args.place).trim();
    const provider = ctx.ports.utility?.weather;
    if (!provider) return { status: 'refused', reason: 'no weather provider is configured' };
    try {
      const report = await provider.forecast(place);
      if (!report) return { place, status: 'not_found', note: `I couldn't find "${place}".` };
      return report;
    } catch (e) {
      if (!(e instanceof ProviderUnavailable)) throw e;
      return {
        place,
        status: 'unavailable',
        note: "The weather service isn't answering right now; please try again in a little while.",
      };
    }
  },
};

export const gif: Skill = {
  id: 'gif',
  description: 'Finds a GIF through the configured provider (Tenor or Giphy); off without one.',
  catalogEntry: 'gif: a GIF for a search (query); off unless a provider is configured',
  permissions: [],
  // The GIF's URL is posted in the channel.
  discordPermissions: ['SendMessages'],
  costClass: 'direct',
  tools: [
    {
      name: 'gif',
      description: 'Search a GIF for a few words, e.g. "happy dance". Returns its URL to post.',
      parameters: {
        type: 'object',
        properties: { query: text(1, 100) },
        required: ['query'],
        additionalProperties: false,
      },
    },
  ],
  async invoke(ctx) {
    const query = String(ctx.args.query).trim();
    const provider = ctx.ports.utility?.gif;
    if (!provider)
      return {
        status: 'refused',
        reason: 'GIF search is off here: no GIF provider and key are configured',
      };
    try {
      const url = await provider.search(query);
      return url ? { url } : { status: 'not_found', note: `No GIF found for "${query}".` };
    } catch (e) {
      if (!(e instanceof ProviderUnavailable)) throw e;
      return { status: 'unavailable', note: "The GIF service isn't answering right now." };
    }
  },
};

/** A reminder's id from its call's id: a call run again stores the same reminder. */
export const reminderIdOf = (callId: string) =>
  `rem-${createHash('sha256').update(callId).digest('hex').slice(0, 24)}`;

export const remind: Skill = {
  id: 'remind',
  description:
    'Sets a reminder ("in 2 hours", "Friday 18:00", "tomorrow 9am"), posted here when due; durable.',
  catalogEntry: 'remind: post a reminder here later (when, text, target me|channel)',
  permissions: ['discord:post'],
  // Posted by the bot in the channel when due.
  discordPermissions: ['SendMessages'],
  costClass: 'direct',
  tools: [
    {
      name: 'remind',
      description:
        'Remind the member who asked (target "me", they are mentioned) or the channel ("channel") later. ' +
        '`when` is plain English: "in 2 hours", "Friday 18:00", "tomorrow 9am".',
      parameters: {
        type: 'object',
        properties: {
          when: text(1, 200),
          text: text(0, 1000),
          target: { type: 'string', enum: ['me', 'channel'] },
        },
        required: ['when'],
        additionalProperties: false,
      },
    },
  ],
  async invoke(ctx) {
    const book = ctx.ports.utility?.reminders;
    if (!book) throw new SkillError('UNAVAILABLE', 'reminders are not kept in this process');
    const a = ctx.args as { when: string; text?: string; target?: 'me' | 'channel' };
    const target = a.target ?? (ctx.askedBy ? 'me' : 'channel');
    if (target === 'me' && !ctx.askedBy)
      throw new SkillError('BAD_REQUEST', 'args.target: "me" needs the member who asked');
    const when = parseWhen(a.when, ctx.now, zoneOf(ctx));
    if ('error' in when) throw new SkillError('BAD_REQUEST', `args.when: ${when.error}`);
    if (when.dueAt - ctx.now > REMIND_MAX_AHEAD_MS)
      throw new SkillError('BAD_REQUEST', 'args.when: reminders go at most a year ahead');
    const said = (a.text ?? '').trim() || when.rest.replace(/^(?:to|that|about)\s+/i, '');
    const reminder = {
      reminderId: reminderIdOf(ctx.callId),
      guildId: ctx.guildId,
      channelId: ctx.channelId,
      ...(ctx.askedBy ? { userId: ctx.askedBy } : {}),
      target,
      text: said.slice(0, 1000) || 'this is the reminder you asked for',
      dueAt: new Date(when.dueAt).toISOString(),
      createdAt: new Date(ctx.now).toISOString(),
    };
    await book.schedule(reminder);
    return {
      reminderId: reminder.reminderId,
      dueAt: reminder.dueAt,
      target,
      text: reminder.text,
    };
  },
};

export const time: Skill = {
  id: 'time',
  description: 'Converts a time between places\' time zones ("7pm Lisbon in Tokyo"), DST included.',
  catalogEntry: 'time: time-zone conversions ("7pm Lisbon in Tokyo", "time in Sydney")',
  permissions: [],
  discordPermissions: [],
  costClass: 'direct',
  tools: [
    {
      name: 'time',
      description:
        'Convert a time between time zones, or tell the time somewhere: "7pm Lisbon in Tokyo", "18:30 New York to London", "time in Sydney".',
      parameters: {
        type: 'object',
        properties: { text: text(1, 200) },
        required: ['text'],
        additionalProperties: false,
      },
    },
  ],
  async invoke(ctx) {
    const out = convertTime(String(ctx.args.text), ctx.now, zoneOf(ctx));
    if ('error' in out) throw new SkillError('BAD_REQUEST', `args.text: ${out.error}`);
    return out;
  },
};
