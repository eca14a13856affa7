import { GuildsQuery, Subjects, type GuildsResult } from '@dirigent/contracts';
import type { FakeDiscord, FakeMessage } from '@dirigent/discord-fake';
import type { Messaging } from '@dirigent/messaging';

const VIEW_CHANNEL = 1n << 10n;

/** The guilds of a local Discord as the ingest's guild query would report them. */
export function fakeGuilds(discord: FakeDiscord, guildId?: string): GuildsResult {
  const guilds = [...discord.guilds.values()].filter((g) => !guildId || g.id === guildId);
  return {
    guilds: guilds.map((g) => ({
      guildId: g.id,
      name: g.name,
      channels: g.channelIds
        .map((id) => discord.channels.get(id)!)
        .filter((c) => c.type === 0)
        .map((c) => ({
          channelId: c.id,
          name: c.name,
          private: c.overwrites.some(
            (o) => o.id === g.id && (BigInt(o.deny) & VIEW_CHANNEL) === VIEW_CHANNEL,
          ),
        })),
    })),
  };
}

/**
 * Answers the guilds query (`Subjects.discord.queryGuilds`) from a local Discord: a stand-in for the
 * ingest's own handler, so the control page lists the playground's guild. It answers in
 * the same queue group as the ingest, so with both present exactly one replies, with
 * the same data.
 */
export function serveFakeGuilds(messaging: Messaging, discord: FakeDiscord): void {
  messaging.serve(Subjects.discord.queryGuilds, {
    payload: GuildsQuery,
    handler: async (q) => fakeGuilds(discord, q.guildId),
  });
}

/**
 * A message's text as Discord shows it: `<#id>` as the channel's (or thread's) name, `<@id>`
 * (`<@!id>`) as @ and the member's display name, `<@&id>` as @ and the role's name.
 */
export function shownContent(discord: FakeDiscord, m: FakeMessage): string {
  const roles = discord.guilds.get(m.guildId)?.roles;
  return m.content
    .replace(/<#(\d{1,20})>/g, (all, id: string) =>
      discord.channels.get(id) ? `#${discord.channels.get(id)!.name}` : all,
    )
    .replace(/<@!?(\d{1,20})>/g, (all, id: string) => {
      const u = discord.users.get(id);
      return u ? `@${u.globalName ?? u.username}` : all;
    })
    .replace(/<@&(\d{1,20})>/g, (all, id: string) =>
      roles?.get(id) ? `@${roles.get(id)!.name}` : all,
    );
}

/** A message of the local Discord as the playground page shows it. */
export function messageJson(discord: FakeDiscord, m: FakeMessage) {
  const author = discord.users.get(m.authorId);
  const isModerator = m.authorId === discord.bot.id;
  return {
    channelId: m.channelId,
    id: m.id,
    authorId: m.authorId,
    author: m.webhookUsername ?? author?.globalName ?? author?.username ?? m.authorId,
    // Dit and Molt speak through webhooks the moderator bot made.
    kind: m.webhookId ? 'agent' : isModerator ? 'moderator' : author?.bot ? 'agent' : 'human',
    content: shownContent(discord, m),
    at: m.createdAt,
    pinned: m.pinned ?? false,
    ...(m.poll ? { poll: { question: m.poll.question, answers: [...m.poll.answers] } } : {}),
    ...(m.threadId && discord.channels.get(m.threadId)
      ? { thread: discord.channels.get(m.threadId)!.name }
      : {}),
    reactions: m.reactions.map((r) => ({
      emoji: r.emoji,
      count: r.userIds.length,
      userIds: [...r.userIds],
    })),
  };
}
