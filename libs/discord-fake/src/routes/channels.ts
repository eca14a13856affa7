import { channelJson } from '../serialize';
import type { Route } from './route';

/** A channel itself and the bot's typing indicator in it. */
export const channelRoutes: Route[] = [
  {
    method: 'GET',
    path: '/channels/:c',
    run: (fake, { seg }) => [200, channelJson(fake.channel(seg[1]))],
  },
  {
    method: 'DELETE',
    path: '/channels/:c',
    run: (fake, { seg }) => [200, channelJson(fake.deleteChannel(seg[1]))],
  },
  {
    method: 'POST',
    path: '/channels/:c/typing',
    run: (fake, { seg }) => {
      fake.startTyping(seg[1], fake.bot.id);
      return [204];
    },
  },
];
