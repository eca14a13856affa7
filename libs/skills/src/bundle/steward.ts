import { roleRefusal } from '../rights';
import { SkillError, type Skill, type SkillContext } from '../types';

const SNOWFLAKE = { type: 'string', pattern: '^[0-9]{5,25}$' };
const CHANNEL_NAME = { type: 'string', minLength: 1, maxLength: 100, pattern: '^[a-z0-9_-]+$' };

export const createChannel: Skill = {
  id: 'create_channel',
  description: 'Creates a text channel (after a moderator approves it in the mod channel).',
  catalogEntry: 'create_channel: propose a new channel (name, topic?); a moderator confirms',
  permissions: ['discord:channels'],
  discordPermissions: ['ManageChannels', 'SendMessages'],
  costClass: 'confirm',
  requires: 'ManageChannels',
  tools: [
    {
      name: 'create_channel',
      description:
        'Propose a new text channel (lower-case name with - or _). A moderator confirms it first.',
      parameters: {
        type: 'object',
        properties: { name: CHANNEL_NAME, topic: { type: 'string', maxLength: 1000 } },
        required: ['name'],
        additionalProperties: false,
      },
    },
  ],
  async invoke(ctx) {
    const { name, topic } = ctx.args as { name: string; topic?: string };
    const { channelId } = await ctx.ports.discord.createChannel({
      guildId: ctx.guildId,
      name,
      private: false,
      memberIds: [],
    });
    if (topic)
      await ctx.ports.discord.post(
        ctx.guildId,
        channelId,
        `Topic: ${topic}`,
        `${ctx.callId}-topic`,
      );
    return { channelId, name };
  },
};

export const archiveChannel: Skill = {
  id: 'archive_channel',
  description:
    'Creates a read-only channel where the bot posts curated artifacts (decisions, plans, canon).',
  catalogEntry:
    'archive_channel: propose a read-only channel of curated artifacts (name, sourceChannelId?, items?)',
  permissions: ['discord:channels', 'discord:post', 'memory:read'],
  discordPermissions: ['ManageChannels', 'ManageRoles', 'SendMessages'],
  costClass: 'confirm',
  requires: 'ManageChannels',
  tools: [
    {
      name: 'archive_channel',
      description:
        'Propose a read-only archive channel; the bot posts `items` there (or the highlights of sourceChannelId). A moderator confirms it first.',
      parameters: {
        type: 'object',
        properties: {
          name: CHANNEL_NAME,
          sourceChannelId: SNOWFLAKE,
          items: {
            type: 'array',
            items: { type: 'string', minLength: 1, maxLength: 1900 },
            maxItems: 25,
          },
        },
        required: ['name'],
        additionalProperties: false,
      },
    },
  ],
  async invoke(ctx) {
    const { name, sourceChannelId, items } = ctx.args as {
      name: string;
      sourceChannelId?: string;
      items?: string[];
    };
    const { discord, memory } = ctx.ports;
    const { channelId } = await discord.createChannel({
      guildId: ctx.guildId,
      name,
      private: false,
      memberIds: [],
    });
    const bot = await discord.botUserId();
    // Read-only: nobody posts but the bot (@everyone's role id is the guild id).
    await discord.setChannelPermissions({
      guildId: ctx.guildId,
      channelId,
      overwrites: [
        { id: ctx.guildId, type: 'role', allow: [], deny: ['SendMessages'] },
        { id: bot, type: 'member', allow: ['SendMessages', 'ViewChannel'], deny: [] },
      ],
    });
    let artifacts = items ?? [];
    if (!artifacts.length && sourceChannelId) {
      const hits = await memory.search(ctx.guildId, name.replace(/[-_]+/g, ' '), {
        layers: ['highlights'],
        channelId: sourceChannelId,
        k: 10,
        // Posted in the new channel: only what its audience may see.
        forChannelId: channelId,
      });
      artifacts = hits.map((h) => h.text);
    }
    for (const [i, text] of artifacts.entries())
      await discord.post(ctx.guildId, channelId, text, `${ctx.callId}-item-${i}`);
    return { channelId, name, posted: artifacts.length };
  },
};

/**
 * Why the role a `manage_roles` call names may not be touched: an existing role of that name
 * carrying a moderator's permission, or at or above the bot's highest role. A new role is
 * made without permissions, at the bottom.
 */
async function privilegedRole(ctx: SkillContext): Promise<string | undefined> {
  const { discord } = ctx.ports;
  const [roles, bot] = await Promise.all([
    discord.roles(ctx.guildId),
    discord.botUserId().then((id) => discord.member(ctx.guildId, id)),
  ]);
  const role = roles.find((r) => r.name === ctx.args.roleName);
  return roleRefusal(role, {
    position: bot?.highestRolePosition ?? 0,
    owner: bot?.owner,
  });
}

export const manageRoles: Skill = {
  id: 'manage_roles',
  description: 'Creates a role, or gives or takes one from a member (after a moderator approves).',
  catalogEntry:
    'manage_roles: propose creating, assigning or removing a role; a moderator confirms',
  permissions: ['discord:roles'],
  discordPermissions: ['ManageRoles'],
  costClass: 'confirm',
  requires: 'ManageRoles',
  tools: [
    {
      name: 'manage_roles',
      description:
        'Propose a role change: create a role, or assign/remove it for userId. A moderator confirms it first.',
      parameters: {
        type: 'object',
        properties: {
          action: { type: 'string', enum: ['create', 'assign', 'remove'] },
          roleName: { type: 'string', minLength: 1, maxLength: 100 },
          userId: SNOWFLAKE,
        },
        required: ['action', 'roleName'],
        if: { properties: { action: { enum: ['assign', 'remove'] } } },
        then: { required: ['userId'] },
        additionalProperties: false,
      },
    },
  ],
  refusal: privilegedRole,
  async invoke(ctx) {
    // Checked again when it runs: the role may have changed since it was proposed.
    const refused = await privilegedRole(ctx);
    if (refused) throw new SkillError('FORBIDDEN', refused);
    const { action, roleName, userId } = ctx.args as {
      action: 'create' | 'assign' | 'remove';
      roleName: string;
      userId?: string;
    };
    const { discord } = ctx.ports;
    // The same name twice answers the existing role, so assign/remove find it this way.
    const { roleId } = await discord.createRole({ guildId: ctx.guildId, name: roleName });
    if (action !== 'create' && userId)
      await discord.assignRole({
        guildId: ctx.guildId,
        userId,
        roleId,
        remove: action === 'remove',
      });
    return { action, roleId, roleName, ...(userId ? { userId } : {}) };
  },
};

export const proposeRestructure: Skill = {
  id: 'propose_restructure',
  description: 'Suggests a reorganization of the server to its moderators; never acts on its own.',
  catalogEntry:
    'propose_restructure: suggest reorganizing the server (summary, steps) to the moderators',
  permissions: ['discord:post', 'discord:channels', 'discord:roles'],
  // Approved, the steward runs its steps: channels made, renamed, archived, moved; roles made.
  discordPermissions: ['SendMessages', 'ManageChannels', 'ManageRoles'],
  costClass: 'confirm',
  tools: [
    {
      name: 'propose_restructure',
      description:
        'Suggest a reorganization of this server to its moderators: a summary and the steps, each one of "create #name", "rename #a to b", "archive #name", "move #name to Category", "create role name". Nothing changes unless they approve; then the steps run in order.',
      parameters: {
        type: 'object',
        properties: {
          summary: { type: 'string', minLength: 1, maxLength: 1000 },
          steps: {
            type: 'array',
            items: { type: 'string', minLength: 1, maxLength: 300 },
            minItems: 1,
            maxItems: 15,
          },
        },
        required: ['summary', 'steps'],
        additionalProperties: false,
      },
    },
  ],
  // No invoke: approved, the steward runs the steps itself, each journalled (exactly once).
};
