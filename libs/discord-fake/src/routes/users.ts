import { partialGuildJson, userJson } from '../serialize';
import { compareSnowflakes } from '@dirigent/contracts';
import type { Route } from './route';

/** The gateway address, the bot's own user, its guilds and application, other users. */
export const userRoutes: Route[] = [
  {
    method: 'GET',
    path: '/gateway/bot',
    run: (fake) => [
      200,
      {
        url: fake.gatewayUrl,
        shards: fake.recommendedShards,
        session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 16 },
      },
    ],
  },
  { method: 'GET', path: '/gateway', run: (fake) => [200, { url: fake.gatewayUrl }] },
  { method: 'GET', path: '/users/@me', run: (fake) => [200, userJson(fake.bot)] },
  {
    method: 'GET',
    path: '/users/@me/guilds',
    run: (fake, { query }) => {
      const after = query.get('after') ?? '0';
      const limit = Number(query.get('limit') ?? 200);
      const ids = [...fake.guilds.keys()]
        .filter((id) => compareSnowflakes(id, after) > 0)
        .sort(compareSnowflakes)
        .slice(0, limit);
      return [200, ids.map((id) => partialGuildJson(fake.guild(id)))];
    },
  },
  { method: 'GET', path: '/users/:id', run: (fake, { seg }) => [200, userJson(fake.user(seg[1]))] },
  {
    method: 'GET',
    path: '/applications/@me',
    run: (fake) => [
      200,
      { id: fake.bot.id, name: fake.bot.username, flags: 0, bot: userJson(fake.bot) },
    ],
  },
];
