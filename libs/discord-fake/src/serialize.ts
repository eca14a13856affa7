import type {
  FakeChannel,
  FakeCommand,
  FakeGuild,
  FakeMember,
  FakeMessage,
  FakePoll,
  FakeReaction,
  FakeRole,
  FakeUser,
  FakeWebhook,
} from './model';

/** Discord API v10 JSON shapes of the fake's records (only the fields clients read). */
export function userJson(u: FakeUser) {
  return {
    id: u.id,
    username: u.username,
    discriminator: '0',
    global_name: u.globalName,
    avatar: null,
    bot: u.bot,
    system: false,
    flags: 0,
    public_flags: 0,
  };
}

export function memberJson(m: FakeMember, user: FakeUser) {
  return {
    user: userJson(user),
    nick: m.nick,
    avatar: null,
    roles: m.roleIds,
    joined_at: m.joinedAt,
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
  };
}

export function roleJson(r: FakeRole) {
  return {
    id: r.id,
    name: r.name,
    color: r.color ?? 0,
    colors: { primary_color: r.color ?? 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position: r.position,
    permissions: r.permissions.toString(),
    managed: false,
    mentionable: r.mentionable ?? false,
    flags: 0,
  };
}

export function channelJson(c: FakeChannel) {
  return {
    id: c.id,
    type: c.type,
    guild_id: c.guildId,
    name: c.name,
    position: c.position,
    parent_id: c.parentId,
    topic: c.topic,
    nsfw: false,
    last_message_id: c.lastMessageId,
    rate_limit_per_user: 0,
    permission_overwrites: c.overwrites.map((o) => ({ ...o })),
    flags: 0,
  };
}

/** A thread channel as THREAD_CREATE and the threads routes answer it. */
export function threadJson(c: FakeChannel) {
  return {
    ...channelJson(c),
    owner_id: c.ownerId ?? null,
    member_count: 0,
    message_count: 0,
    total_message_sent: 0,
    thread_metadata: {
      archived: false,
      auto_archive_duration: c.autoArchiveMinutes ?? 1440,
      archive_timestamp: new Date().toISOString(),
      locked: false,
    },
  };
}

/** `{ id, name }` of a reaction emoji: `name:id` is a custom emoji, anything else unicode. */
export function emojiJson(emoji: string) {
  const custom = /^(.+):(\d{1,20})$/.exec(emoji);
  return custom ? { id: custom[2], name: custom[1] } : { id: null, name: emoji };
}

function reactionJson(r: FakeReaction, botId: string) {
  return {
    count: r.userIds.length,
    count_details: { burst: 0, normal: r.userIds.length },
    me: r.userIds.includes(botId),
    me_burst: false,
    burst_colors: [],
    emoji: emojiJson(r.emoji),
  };
}

export function messageJson(
  m: FakeMessage,
  author: FakeUser,
  member: { json: ReturnType<typeof memberJson> } | null,
  context: { mentioned: FakeUser[]; botId: string },
) {
  const authorJson = m.webhookId
    ? {
        ...userJson(author),
        id: m.webhookId,
        username: m.webhookUsername ?? author.username,
        bot: true,
        avatar: null,
      }
    : userJson(author);
  return {
    id: m.id,
    type: m.replyToMessageId ? 19 : 0,
    channel_id: m.channelId,
    guild_id: m.guildId,
    author: authorJson,
    ...(member && !m.webhookId
      ? { member: { ...member.json, user: undefined, deaf: false, mute: false } }
      : {}),
    content: m.content,
    timestamp: m.createdAt,
    ...messageDefaults(),
    mentions: context.mentioned.map(userJson),
    ...(m.reactions.length
      ? { reactions: m.reactions.map((r) => reactionJson(r, context.botId)) }
      : {}),
    flags: m.flags,
    pinned: m.pinned ?? false,
    ...(m.poll ? { poll: pollJson(m.poll) } : {}),
    components: [],
    ...(m.webhookId ? { webhook_id: m.webhookId } : {}),
    ...(m.nonce ? { nonce: m.nonce } : {}),
    ...(m.replyToMessageId
      ? {
          message_reference: {
            type: 0,
            message_id: m.replyToMessageId,
            channel_id: m.channelId,
            guild_id: m.guildId,
          },
        }
      : {}),
  };
}

export function pollJson(p: FakePoll) {
  return {
    question: { text: p.question },
    answers: p.answers.map((text, i) => ({ answer_id: i + 1, poll_media: { text } })),
    expiry: p.expiry,
    allow_multiselect: p.allowMultiselect,
    layout_type: 1,
    results: { is_finalized: false, answer_counts: [] },
  };
}

export function webhookJson(w: FakeWebhook, creator: FakeUser | undefined, withToken: boolean) {
  return {
    id: w.id,
    type: 1,
    guild_id: w.guildId,
    channel_id: w.channelId,
    name: w.name,
    avatar: w.avatar,
    application_id: null,
    ...(withToken ? { token: w.token } : {}),
    ...(creator ? { user: userJson(creator) } : {}),
  };
}

export function commandJson(c: FakeCommand) {
  return {
    id: c.id,
    application_id: c.applicationId,
    guild_id: c.guildId ?? undefined,
    name: c.name,
    description: c.description,
    type: c.type,
    options: c.options,
    default_member_permissions: c.defaultMemberPermissions,
    version: c.version,
    nsfw: false,
    contexts: null,
    integration_types: [0],
  };
}

/** A guild as `GET /users/@me/guilds` lists it (a partial guild). */
export function partialGuildJson(g: FakeGuild) {
  return {
    id: g.id,
    name: g.name,
    icon: null,
    banner: null,
    owner: false,
    permissions: '0',
    features: [],
  };
}

export function guildJson(g: FakeGuild) {
  return {
    id: g.id,
    name: g.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    banner: null,
    description: null,
    owner_id: g.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    mfa_level: 0,
    nsfw_level: 0,
    premium_tier: 0,
    premium_progress_bar_enabled: false,
    preferred_locale: 'en-US',
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    public_updates_channel_id: null,
    safety_alerts_channel_id: null,
    vanity_url_code: null,
    application_id: null,
    features: [],
    emojis: [],
    stickers: [],
    roles: [...g.roles.values()].map(roleJson),
    max_members: 500000,
    max_video_channel_users: 25,
  };
}

/** The fields every message of this fake carries with the same value (no edits, embeds...). */
export function messageDefaults() {
  return {
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    pinned: false,
  };
}
