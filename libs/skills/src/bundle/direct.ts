import { rollDice } from '../dice';
import { SkillError, type Skill } from '../types';

const SNOWFLAKE = { type: 'string', pattern: '^[0-9]{5,25}$' };

export const dice: Skill = {
  id: 'dice',
  description: 'Rolls dice in standard notation (2d6+1, d20, 3d8-2); seeded and recorded.',
  catalogEntry: 'dice: roll dice (2d6+1, d20)',
  permissions: [],
  discordPermissions: [],
  costClass: 'direct',
  tools: [
    {
      name: 'dice',
      description:
        'Roll dice in standard notation, e.g. "2d6+1" or "d20". Returns each die and the total.',
      parameters: {
        type: 'object',
        properties: {
          notation: { type: 'string', minLength: 2, maxLength: 60, pattern: '^[0-9dD+\\- ]+$' },
        },
        required: ['notation'],
        additionalProperties: false,
      },
    },
  ],
  async invoke(ctx) {
    const rolled = rollDice(String(ctx.args.notation), ctx.seed);
    if ('error' in rolled) throw new SkillError('BAD_REQUEST', `args.notation: ${rolled.error}`);
    return rolled;
  },
};

export const poll: Skill = {
  id: 'poll',
  description: 'Opens a native Discord poll in the channel.',
  catalogEntry: 'poll: open a poll here (question, 2-10 options)',
  permissions: ['discord:post'],
  discordPermissions: ['SendMessages', 'SendPolls'],
  costClass: 'direct',
  requires: 'SendPolls',
  tools: [
    {
      name: 'poll',
      description: 'Open a Discord poll in this channel with a question and 2 to 10 options.',
      parameters: {
        type: 'object',
        properties: {
          question: { type: 'string', minLength: 1, maxLength: 300 },
          options: {
            type: 'array',
            items: { type: 'string', minLength: 1, maxLength: 55 },
            minItems: 2,
            maxItems: 10,
          },
          durationHours: { type: 'integer', minimum: 1, maximum: 768 },
        },
        required: ['question', 'options'],
        additionalProperties: false,
      },
    },
  ],
  async invoke(ctx) {
    const {
      question,
      options,
      durationHours = 24,
    } = ctx.args as {
      question: string;
      options: string[];
      durationHours?: number;
    };
    const { messageId } = await ctx.ports.discord.createPoll({
      guildId: ctx.guildId,
      channelId: ctx.channelId,
      question,
      answers: options,
      durationHours,
    });
    return { messageId, question, options, durationHours };
  },
};

export const createThread: Skill = {
  id: 'create_thread',
  description: 'Opens a thread for a sub-conversation, on a message or standalone.',
  catalogEntry: 'create_thread: open a thread (channelId, name, messageId?)',
  permissions: ['discord:threads'],
  discordPermissions: ['CreatePublicThreads', 'SendMessagesInThreads'],
  costClass: 'direct',
  requires: 'CreatePublicThreads',
  tools: [
    {
      name: 'create_thread',
      description:
        'Open a public thread in a channel of this server (this channel unless channelId), optionally on a message.',
      parameters: {
        type: 'object',
        properties: {
          channelId: SNOWFLAKE,
          name: { type: 'string', minLength: 1, maxLength: 100 },
          messageId: SNOWFLAKE,
        },
        required: ['name'],
        additionalProperties: false,
      },
    },
  ],
  async invoke(ctx) {
    const {
      channelId = ctx.channelId,
      name,
      messageId,
    } = ctx.args as {
      channelId?: string;
      name: string;
      messageId?: string;
    };
    const { threadId } = await ctx.ports.discord.createThread({
      guildId: ctx.guildId,
      channelId,
      name,
      ...(messageId ? { messageId } : {}),
    });
    return { threadId, channelId, name };
  },
};

export const pinMoment: Skill = {
  id: 'pin_moment',
  description: 'Pins a highlight-worthy message.',
  catalogEntry: 'pin_moment: pin a message (channelId, messageId)',
  permissions: ['discord:pins'],
  discordPermissions: ['PinMessages'],
  costClass: 'direct',
  requires: 'ManageMessages',
  tools: [
    {
      name: 'pin_moment',
      description: 'Pin a message worth keeping (this channel unless channelId).',
      parameters: {
        type: 'object',
        properties: { channelId: SNOWFLAKE, messageId: SNOWFLAKE },
        required: ['messageId'],
        additionalProperties: false,
      },
    },
  ],
  async invoke(ctx) {
    const { channelId = ctx.channelId, messageId } = ctx.args as {
      channelId?: string;
      messageId: string;
    };
    await ctx.ports.discord.pinMessage({ guildId: ctx.guildId, channelId, messageId });
    return { pinned: true, channelId, messageId };
  },
};
