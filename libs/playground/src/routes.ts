import type { IncomingMessage, ServerResponse } from 'node:http';
import { subject } from '@dirigent/contracts';
import type { FakeDiscord } from '@dirigent/discord-fake';
import type { DemoAgentSpec } from './demo-agent';
import { messageJson } from './fake-guilds';
import { HttpError, readBody, str, type Json } from './http';
import { PLAYGROUND_CLIENT_JS, playgroundPage } from './page';

/** What the playground's HTTP routes act on: its world, its state and its NATS calls. */
export interface PlaygroundHost {
  readonly discord: FakeDiscord;
  readonly guildId: string;
  readonly chatChannelId: string;
  readonly humanId: string;
  readonly agentSpecs: readonly DemoAgentSpec[];
  readonly dit: DemoAgentSpec;
  readonly molt: DemoAgentSpec;
  /** Whether the agents have started (the state can be read). */
  ready(): boolean;
  /** The page's whole state. */
  state(): Promise<unknown>;
  /** Keeps `res` as a server-sent events client until its request closes. */
  follow(req: IncomingMessage, res: ServerResponse): void;
  /** A NATS request; a refusal is an {@link HttpError}. */
  call<T>(subj: string, data: unknown): Promise<T>;
  setMode(channelId: string, mode: string): Promise<unknown>;
}

/**
 * The playground's page and API: the page and its script, the state and its event stream,
 * and the person's acts (post, react, a channel's mode, a new channel, an agent joining or
 * leaving the guild). Errors answer with their status and `{ error }`.
 */
export class PlaygroundRoutes {
  constructor(private readonly host: PlaygroundHost) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const h = this.host;
    const url = new URL(req.url ?? '/', 'http://playground');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, {
        'content-type': type,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      res.end(body);
    };
    const json = (status: number, body: unknown) =>
      send(status, 'application/json', JSON.stringify(body));
    try {
      const m = req.method ?? 'GET';
      let match: RegExpExecArray | null;
      if (m === 'GET' && (path === '/' || path === '/playground')) {
        if (path === '/') {
          res.writeHead(302, { location: '/playground' });
          res.end();
          return;
        }
        return send(200, 'text/html; charset=utf-8', playgroundPage());
      }
      if (m === 'GET' && path === '/playground/app.js') {
        return send(200, 'application/javascript', PLAYGROUND_CLIENT_JS);
      }
      if (m === 'GET' && path === '/playground/api/state') {
        if (!h.ready()) throw new HttpError(503, 'starting…');
        return json(200, await h.state());
      }
      if (m === 'GET' && path === '/playground/api/events') {
        res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          connection: 'keep-alive',
        });
        res.write('retry: 1000\n\n');
        h.follow(req, res);
        return;
      }
      if (
        m === 'POST' &&
        (match = /^\/playground\/api\/channels\/(\d{1,20})\/messages$/.exec(path))
      ) {
        const body = await readBody(req);
        const channelId = match[1];
        if (!h.discord.channels.has(channelId)) throw new HttpError(404, 'no such channel');
        const msg = h.discord.postMessage({
          channelId,
          authorId: h.humanId,
          content: str(body.content, 'content'),
        });
        return json(200, messageJson(h.discord, msg));
      }
      if (
        m === 'POST' &&
        (match = /^\/playground\/api\/channels\/(\d{1,20})\/messages\/(\d{1,20})\/reactions$/.exec(
          path,
        ))
      ) {
        return json(200, this.react(match[1], match[2], await readBody(req)));
      }
      if (m === 'POST' && (match = /^\/playground\/api\/channels\/(\d{1,20})\/mode$/.exec(path))) {
        const body = await readBody(req);
        return json(200, await h.setMode(match[1], str(body.mode, 'mode', 20)));
      }
      if (m === 'POST' && path === '/playground/api/channels') {
        return json(200, await this.createChannel(await readBody(req)));
      }
      if (m === 'POST' && (match = /^\/playground\/api\/agents\/(\d{1,20})$/.exec(path))) {
        return json(200, this.membership(match[1], await readBody(req)));
      }
      throw new HttpError(404, 'not found');
    } catch (e) {
      const status = e instanceof HttpError ? e.status : 500;
      json(status, { error: e instanceof HttpError ? e.message : 'internal error' });
    }
  }

  /** An agent joins (`inGuild: true`) or leaves (`false`) the guild. */
  private membership(userId: string, body: Json) {
    const h = this.host;
    const agent = [...h.agentSpecs, h.dit, h.molt].find((a) => a.userId === userId);
    if (!agent) throw new HttpError(404, 'no such agent');
    const inGuild = h.discord.guilds.get(h.guildId)!.members.has(agent.userId);
    if (body.inGuild === true && !inGuild) h.discord.addMember(h.guildId, agent.userId);
    if (body.inGuild === false && inGuild) h.discord.removeMember(h.guildId, agent.userId);
    return { userId: agent.userId, inGuild: body.inGuild === true };
  }

  /** The human's reaction on a message (e.g. ✅ or ❌ on a steward proposal); again takes it back. */
  private react(channelId: string, messageId: string, body: Json) {
    const { discord, humanId } = this.host;
    const emoji = str(body.emoji, 'emoji', 100);
    const msg = discord.channelMessages(channelId).find((x) => x.id === messageId);
    if (!msg) throw new HttpError(404, 'no such message');
    const mine = msg.reactions.some((r) => r.emoji === emoji && r.userIds.includes(humanId));
    const r = { channelId, messageId, userId: humanId, emoji };
    if (mine) discord.unreact(r);
    else discord.react(r);
    return messageJson(discord, msg);
  }

  private async createChannel(body: Json): Promise<{ channelId: string }> {
    const h = this.host;
    const name = str(body.name, 'name', 90)
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-');
    const agentIds = Array.isArray(body.agents) ? body.agents.map(String) : [];
    const chosen = h.agentSpecs.filter((a) => agentIds.includes(a.userId));
    if (body.kind === 'discussion') {
      const [initiator, ...others] = chosen;
      if (!initiator) throw new HttpError(400, 'a discussion needs at least one agent');
      return h.call<{ channelId: string }>(subject.tool('create-discussion-channel'), {
        callerAgentId: initiator.agentId,
        callbackGuildId: h.guildId,
        callbackChannelId: h.chatChannelId,
        guide: str(body.guide ?? `Discuss: ${name}`, 'guide', 4000),
        participants: [h.humanId, ...others.map((a) => a.userId)],
      });
    }
    if (body.kind !== 'chat') throw new HttpError(400, 'kind must be chat or discussion');
    const channel = h.discord.createChannel(h.guildId, { name });
    await h.setMode(channel.id, 'chat');
    return { channelId: channel.id };
  }
}
