import { HttpError, notFound } from '../http-error';
import { channelJson, guildJson, memberJson, webhookJson } from '../serialize';
import { compareSnowflakes } from '@dirigent/contracts';
import type { Route } from './route';

/** A guild, its channels (list, create), members and webhooks. */
export const guildRoutes: Route[] = [
  {
    method: 'GET',
    path: '/guilds/:g',
    run: (fake, { seg }) => [200, guildJson(fake.guild(seg[1]))],
  },
  {
    method: 'GET',
    path: '/guilds/:g/channels',
    run: (fake, { seg }) => [
      200,
      fake.guild(seg[1]).channelIds.map((id) => channelJson(fake.channel(id))),
    ],
  },
  {
    method: 'POST',
    path: '/guilds/:g/channels',
    run: (fake, { seg, body }) => {
      const g = fake.guild(seg[1]);
      if (typeof body.name !== 'string' || !body.name) {
        throw new HttpError(400, 50035, 'Invalid Form Body: name');
      }
      const channel = fake.createChannel(g.id, {
        name: body.name,
        type: body.type ?? 0,
        topic: body.topic,
        overwrites: (body.permission_overwrites ?? []).map((o: any) => ({
          id: String(o.id),
          type: Number(o.type) === 1 ? 1 : 0,
          allow: String(o.allow ?? '0'),
          deny: String(o.deny ?? '0'),
        })),
      });
      return [201, channelJson(channel)];
    },
  },
  {
    method: 'GET',
    path: '/guilds/:g/members',
    run: (fake, { seg, query }) => {
      const limit = Math.min(Number(query.get('limit') ?? 1), 1000);
      const after = query.get('after') ?? '0';
      const list = [...fake.guild(seg[1]).members.values()]
        .filter((m) => compareSnowflakes(m.userId, after) > 0)
        .sort((a, b) => compareSnowflakes(a.userId, b.userId))
        .slice(0, limit);
      return [200, list.map((m) => memberJson(m, fake.user(m.userId)))];
    },
  },
  {
    method: 'GET',
    path: '/guilds/:g/members/:u',
    run: (fake, { seg }) => {
      const m = fake.guild(seg[1]).members.get(seg[3]);
      if (!m) throw notFound('Member', 10007);
      return [200, memberJson(m, fake.user(m.userId))];
    },
  },
  {
    method: 'GET',
    path: '/guilds/:g/webhooks',
    run: (fake, { seg }) => {
      const hooks = [...fake.webhooks.values()].filter((w) => w.guildId === seg[1]);
      return [200, hooks.map((w) => webhookJson(w, fake.users.get(w.creatorId), true))];
    },
  },
];
