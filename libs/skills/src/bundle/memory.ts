import type { MemoryHit } from '@dirigent/contracts';
import { SEARCH_LAYERS } from '@dirigent/memory-domain';
import { SkillError, type Skill } from '../types';

const SNOWFLAKE = { type: 'string', pattern: '^[0-9]{5,25}$' };

const hit = (h: MemoryHit) => ({
  layer: h.layer,
  text: h.text,
  at: h.at,
  ...(h.authorId ? { authorId: h.authorId } : {}),
  ...(h.channelId ? { channelId: h.channelId } : {}),
  ...(h.messageId ? { messageId: h.messageId } : {}),
});

export const memorySearch: Skill = {
  id: 'memory_search',
  description: "Searches the guild's memory (archive, highlights, epochs, lore, dossiers).",
  catalogEntry: 'memory_search: look something up in what this server said and decided',
  permissions: ['memory:read'],
  discordPermissions: [],
  costClass: 'direct',
  tools: [
    {
      name: 'memory_search',
      description:
        "Search this server's memory for a topic. Returns the best hits with who said them and when.",
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, maxLength: 500 },
          layers: {
            type: 'array',
            items: { type: 'string', enum: [...SEARCH_LAYERS] },
            uniqueItems: true,
          },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
  ],
  async invoke(ctx) {
    const { query, layers } = ctx.args as {
      query: string;
      layers?: (typeof SEARCH_LAYERS)[number][];
    };
    const hits = await ctx.ports.memory.search(ctx.guildId, query, {
      layers,
      k: 8,
      forChannelId: ctx.channelId,
    });
    return { hits: hits.map(hit) };
  },
};

export const recallUser: Skill = {
  id: 'recall_user',
  description: 'Recalls what memory holds about one member (their dossier), by user id or name.',
  catalogEntry: 'recall_user: what we know about a member (by userId or name)',
  permissions: ['memory:read'],
  discordPermissions: [],
  costClass: 'direct',
  tools: [
    {
      name: 'recall_user',
      description: 'Recall what this server knows about a member: give their userId or their name.',
      parameters: {
        type: 'object',
        properties: {
          userId: SNOWFLAKE,
          name: { type: 'string', minLength: 1, maxLength: 100 },
        },
        oneOf: [{ required: ['userId'] }, { required: ['name'] }],
        additionalProperties: false,
      },
    },
  ],
  async invoke(ctx) {
    const { userId, name } = ctx.args as { userId?: string; name?: string };
    let id = userId;
    if (!id && name) {
      const hits = await ctx.ports.memory.search(ctx.guildId, name, {
        layers: ['dossiers'],
        k: 1,
        forChannelId: ctx.channelId,
      });
      id = hits[0]?.authorId;
    }
    if (!id) throw new SkillError('NOT_FOUND', `nobody called ${name} in memory`);
    const dossier = await ctx.ports.memory.dossier(ctx.guildId, id, ctx.channelId);
    // Memory answers an empty dossier for someone it never saw: nobody to recall.
    if (!dossier || dossier.messageCount === 0)
      throw new SkillError('NOT_FOUND', `no dossier for ${userId ?? name}`);
    return {
      userId: dossier.userId,
      dossier: dossier.body,
      messageCount: dossier.messageCount,
      lastSeenAt: dossier.lastSeenAt,
    };
  },
};

export const recallGroup: Skill = {
  id: 'recall_group',
  description: "Recalls the group's lore: running jokes, shared canon, decisions (on a topic).",
  catalogEntry: 'recall_group: the group’s lore and canon, optionally on a topic',
  permissions: ['memory:read'],
  discordPermissions: [],
  costClass: 'direct',
  tools: [
    {
      name: 'recall_group',
      description:
        "Recall this group's lore (running jokes, shared canon, decisions), optionally on a topic.",
      parameters: {
        type: 'object',
        properties: { topic: { type: 'string', minLength: 1, maxLength: 300 } },
        additionalProperties: false,
      },
    },
  ],
  async invoke(ctx) {
    const { topic } = ctx.args as { topic?: string };
    if (topic) {
      const hits = await ctx.ports.memory.search(ctx.guildId, topic, {
        layers: ['lore', 'highlights', 'epochs'],
        k: 8,
        forChannelId: ctx.channelId,
      });
      return { lore: hits.map(hit) };
    }
    const ctxt = await ctx.ports.memory.context(ctx.guildId, ctx.channelId, 'live+lore', {});
    const lore = ctxt.sections
      .filter((s) => s.layer === 'lore')
      .flatMap((s) => s.items.map((i) => ({ text: i.text, at: i.at })));
    return { lore };
  },
};

export const summarizeWindow: Skill = {
  id: 'summarize_window',
  description: "Gives the last minutes of a channel's talk (who said what, when) to summarize.",
  catalogEntry: 'summarize_window: the recent talk of this (or another) channel, to summarize',
  permissions: ['memory:read'],
  discordPermissions: [],
  costClass: 'direct',
  tools: [
    {
      name: 'summarize_window',
      description:
        'Fetch the recent messages of this channel (or channelId) from the last `minutes` (default 60), to summarize them.',
      parameters: {
        type: 'object',
        properties: {
          channelId: SNOWFLAKE,
          minutes: { type: 'integer', minimum: 1, maximum: 1440 },
        },
        additionalProperties: false,
      },
    },
  ],
  async invoke(ctx) {
    const { channelId = ctx.channelId, minutes = 60 } = ctx.args as {
      channelId?: string;
      minutes?: number;
    };
    // Another channel's talk, for the audience of the channel the summary is posted in.
    const live = await ctx.ports.memory.context(ctx.guildId, channelId, 'live', {
      forChannelId: ctx.channelId,
    });
    const since = ctx.now - minutes * 60_000;
    // The live lens may bring in the guild's other channels: only this channel's talk.
    const items = live.sections
      .flatMap((s) => s.items)
      .filter((i) => (!i.channelId || i.channelId === channelId) && Date.parse(i.at) >= since)
      .map((i) => ({ text: i.text, at: i.at, ...(i.authorId ? { authorId: i.authorId } : {}) }));
    return { channelId, minutes, messages: items };
  },
};
