import type { FakeDiscord } from './fake-discord';
import { channelJson, commandJson, userJson } from './serialize';

/** An answer of the control API: status and JSON body. */
export type ControlAnswer = [number, unknown];

const bad = (message: string): ControlAnswer => [400, { error: message }];
const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * The fake's own HTTP API under `/_fake/…`, for the playground and for tests in other
 * processes: build the world, act as any user, drop the gateway, script failures, look at
 * everything. No auth: the fake listens on loopback unless told otherwise.
 *
 * @example
 * await fetch(`${base}/_fake/channels/${channelId}/messages`, {
 *   method: 'POST', body: JSON.stringify({ authorId, content: 'hi' }),
 * });
 */
export async function handleControl(
  fake: FakeDiscord,
  method: string,
  path: string,
  body: any,
): Promise<ControlAnswer> {
  const seg = path.split('/').filter(Boolean).slice(1);
  const is = (m: string, pattern: string) => {
    if (m !== method) return false;
    const p = pattern.split('/').filter(Boolean);
    return p.length === seg.length && p.every((s, i) => s.startsWith(':') || s === seg[i]);
  };

  if (is('GET', '/state')) {
    return [
      200,
      {
        apiUrl: fake.apiUrl,
        gatewayUrl: fake.gatewayUrl,
        bot: userJson(fake.bot),
        users: [...fake.users.values()].map(userJson),
        guilds: [...fake.guilds.values()].map((g) => ({
          id: g.id,
          name: g.name,
          ownerId: g.ownerId,
          moderatorRoleId: fake.moderatorRoleId(g.id),
          members: [...g.members.values()],
          channels: g.channelIds.map((id) => channelJson(fake.channels.get(id)!)),
        })),
        webhooks: [...fake.webhooks.values()].map(({ token: _t, ...w }) => w),
        commands: [...fake.commands.values()].map(commandJson),
        gateway: {
          connected: fake.gateway.readySessions,
          identifies: fake.gateway.identifies,
          resumes: fake.gateway.resumes,
        },
      },
    ];
  }
  if (is('POST', '/users')) {
    if (!str(body.username)) return bad('username is required');
    return [201, userJson(fake.createUser({ username: body.username, bot: !!body.bot }))];
  }
  if (is('POST', '/guilds')) {
    const g = fake.createGuild({ name: body.name, ownerId: body.ownerId });
    return [201, { id: g.id, name: g.name }];
  }
  if (is('POST', '/guilds/:g/members')) {
    if (!str(body.userId)) return bad('userId is required');
    fake.addMember(seg[1], body.userId, { manageChannels: !!body.manageChannels });
    return [201, { guildId: seg[1], userId: body.userId }];
  }
  if (is('DELETE', '/guilds/:g/members/:u')) {
    fake.removeMember(seg[1], seg[3]);
    return [204, undefined];
  }
  if (is('POST', '/guilds/:g/channels')) {
    if (!str(body.name)) return bad('name is required');
    return [201, channelJson(fake.createChannel(seg[1], { name: body.name }))];
  }
  if (is('GET', '/channels/:c/messages')) {
    return [200, fake.channelMessages(seg[1])];
  }
  if (is('POST', '/channels/:c/messages')) {
    if (!str(body.content)) return bad('content is required');
    if (str(body.webhookId)) {
      return [
        201,
        fake.postWebhookMessage({
          webhookId: body.webhookId,
          content: body.content,
          username: body.username,
        }),
      ];
    }
    if (!str(body.authorId)) return bad('authorId or webhookId is required');
    return [
      201,
      fake.postMessage({
        channelId: seg[1],
        authorId: body.authorId,
        content: body.content,
        replyToMessageId: body.replyToMessageId,
      }),
    ];
  }
  if (is('DELETE', '/channels/:c/messages/:m')) {
    fake.deleteMessage(seg[1], seg[3]);
    return [204, undefined];
  }
  if (
    is('PUT', '/channels/:c/messages/:m/reactions') ||
    is('DELETE', '/channels/:c/messages/:m/reactions')
  ) {
    if (!str(body.userId) || !str(body.emoji)) return bad('userId and emoji are required');
    const reaction = {
      channelId: seg[1],
      messageId: seg[3],
      userId: body.userId,
      emoji: body.emoji,
    };
    if (method === 'PUT') fake.react(reaction);
    else fake.unreact(reaction);
    return [204, undefined];
  }
  if (is('POST', '/channels/:c/typing')) {
    if (!str(body.userId)) return bad('userId is required');
    fake.startTyping(seg[1], body.userId);
    return [204, undefined];
  }
  if (is('POST', '/channels/:c/webhooks')) {
    if (!str(body.name)) return bad('name is required');
    const hook = fake.createWebhook(seg[1], body.name, body.creatorId);
    return [201, { id: hook.id, name: hook.name, channelId: hook.channelId }];
  }
  if (is('POST', '/commands')) {
    for (const k of ['guildId', 'channelId', 'userId', 'name']) {
      if (!str(body[k])) return bad(`${k} is required`);
    }
    return [200, await fake.runCommand(body)];
  }
  if (is('POST', '/gateway/drop')) {
    fake.dropGateway({ resumable: body.resumable !== false });
    return [204, undefined];
  }
  if (is('POST', '/failures')) {
    if (!str(body.method) || !str(body.path) || typeof body.status !== 'number') {
      return bad('method, path and status are required');
    }
    fake.failNext(body);
    return [204, undefined];
  }
  return [404, { error: `no control route ${method} ${path}` }];
}
