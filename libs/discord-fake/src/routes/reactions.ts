import { HttpError } from '../http-error';
import type { Route } from './route';

const CUSTOM = /^[\w-]{2,32}:\d{1,20}$/;
const UNICODE = /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|[#*0-9]\uFE0F?\u20E3)/u;

/** The path's emoji, or Discord's Unknown Emoji (e.g. a word instead of a character). */
function emojiOf(raw: string): string {
  if (CUSTOM.test(raw) || UNICODE.test(raw)) return raw;
  throw new HttpError(400, 10014, 'Unknown Emoji');
}

/** The bot's own reactions: add and remove. */
export const reactionRoutes: Route[] = [
  {
    method: 'PUT',
    path: '/channels/:c/messages/:m/reactions/:emoji/@me',
    run: (fake, { seg }) => {
      const emoji = emojiOf(seg[5]);
      fake.react({ channelId: seg[1], messageId: seg[3], userId: fake.bot.id, emoji });
      return [204];
    },
  },
  {
    method: 'DELETE',
    path: '/channels/:c/messages/:m/reactions/:emoji/@me',
    run: (fake, { seg }) => {
      const emoji = emojiOf(seg[5]);
      fake.unreact({ channelId: seg[1], messageId: seg[3], userId: fake.bot.id, emoji });
      return [204];
    },
  },
];
