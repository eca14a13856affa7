import type { FakeDiscord } from './fake-discord';
import { channelJson, commandJson, userJson } from './serialize';

/** An answer of the control API: status and JSON body. */
export type ControlAnswer = [number, unknown];

const bad = (message: string): ControlAnswer => [400, { error: message }];
const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** What `GET /_fake/state` shows: the whole world the fake holds. */
function worldState(fake: FakeDiscord) {
  return {
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
  };
}

/** A route's handler: `seg` is the path after `/_fake`, split (`:params` read by index). */
type Handler = (
  fake: FakeDiscord,
  seg: string[],
  body: any,
  method: string,
) => ControlAnswer | Promise<ControlAnswer>;

interface Route {
  method: string;
  pattern: string[];
  handle: Handler;
}

const route = (method: string, pattern: string, handle: Handler): Route => ({
  method,
  pattern: pattern.split('/').filter(Boolean),
  handle,
});

/** Building the world: users, guilds, members, channels. */
const WORLD: Route[] = [
  route('GET', '/state', (fake) => [200, worldState(fake)]),
  route('POST', '/users', (fake, _seg, body) => {
    if (!str(body.username)) return bad('username is required');
    return [201, userJson(fake.createUser({ username: body.username, bot: !!body.bot }))];
  }),
  route('POST', '/guilds', (fake, _seg, body) => {
    const g = fake.createGuild({ name: body.name, ownerId: body.ownerId });
    return [201, { id: g.id, name: g.name }];
  }),
  route('POST', '/guilds/:g/members', (fake, seg, body) => {
    if (!str(body.userId)) return bad('userId is required');
    fake.addMember(seg[1], body.userId, { manageChannels: !!body.manageChannels });
    return [201, { guildId: seg[1], userId: body.userId }];
  }),
  route('DELETE', '/guilds/:g/members/:u', (fake, seg) => {
    fake.removeMember(seg[1], seg[3]);
    return [204, undefined];
  }),
  route('POST', '/guilds/:g/channels', (fake, seg, body) => {
    if (!str(body.name)) return bad('name is required');
    return [201, channelJson(fake.createChannel(seg[1], { name: body.name }))];
  }),
];

/** A user posting as themselves, or a webhook posting under its own name. */
const postMessage: Handler = (fake, seg, body) => {
  if (!str(body.content)) return bad('content is required');
  if (str(body.webhookId)) {
    const { webhookId, content, username } = body;
    return [201, fake.postWebhookMessage({ webhookId, content, username })];
  }
  if (!str(body.authorId)) return bad('authorId or webhookId is required');
  const { authorId, content, replyToMessageId } = body;
  return [201, fake.postMessage({ channelId: seg[1], authorId, content, replyToMessageId })];
};

const reaction: Handler = (fake, seg, body, method) => {
  if (!str(body.userId) || !str(body.emoji)) return bad('userId and emoji are required');
  const r = { channelId: seg[1], messageId: seg[3], userId: body.userId, emoji: body.emoji };
  if (method === 'PUT') fake.react(r);
  else fake.unreact(r);
  return [204, undefined];
};

/** Acting as any user: messages, reactions, typing, webhooks, slash commands. */
const ACTS: Route[] = [
  route('GET', '/channels/:c/messages', (fake, seg) => [200, fake.channelMessages(seg[1])]),
  route('POST', '/channels/:c/messages', postMessage),
  route('DELETE', '/channels/:c/messages/:m', (fake, seg) => {
    fake.deleteMessage(seg[1], seg[3]);
    return [204, undefined];
  }),
  route('PUT', '/channels/:c/messages/:m/reactions', reaction),
  route('DELETE', '/channels/:c/messages/:m/reactions', reaction),
  route('POST', '/channels/:c/typing', (fake, seg, body) => {
    if (!str(body.userId)) return bad('userId is required');
    fake.startTyping(seg[1], body.userId);
    return [204, undefined];
  }),
  route('POST', '/channels/:c/webhooks', (fake, seg, body) => {
    if (!str(body.name)) return bad('name is required');
    const hook = fake.createWebhook(seg[1], body.name, body.creatorId);
    return [201, { id: hook.id, name: hook.name, channelId: hook.channelId }];
  }),
  route('POST', '/commands', async (fake, _seg, body) => {
    for (const k of ['guildId', 'channelId', 'userId', 'name']) {
      if (!str(body[k])) return bad(`${k} is required`);
    }
    return [200, await fake.runCommand(body)];
  }),
];

/** Scripting failures: a dropped gateway, an error for the next matching request. */
const FAULTS: Route[] = [
  route('POST', '/gateway/drop', (fake, _seg, body) => {
    fake.dropGateway({ resumable: body.resumable !== false });
    return [204, undefined];
  }),
  route('POST', '/failures', (fake, _seg, body) => {
    if (!str(body.method) || !str(body.path) || typeof body.status !== 'number') {
      return bad('method, path and status are required');
    }
    fake.failNext(body);
    return [204, undefined];
  }),
];

const ROUTES: readonly Route[] = [...WORLD, ...ACTS, ...FAULTS];

const matches = (r: Route, method: string, seg: string[]): boolean =>
  r.method === method &&
  r.pattern.length === seg.length &&
  r.pattern.every((p, i) => p.startsWith(':') || p === seg[i]);

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
  const r = ROUTES.find((x) => matches(x, method, seg));
  return r
    ? r.handle(fake, seg, body, method)
    : [404, { error: `no control route ${method} ${path}` }];
}
