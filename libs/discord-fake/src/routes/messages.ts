import { HttpError } from '../http-error';
import { compareSnowflakes } from '../snowflakes';
import type { Route } from './route';

/** A channel's messages: history, one message, send as the bot, delete. */
export const messageRoutes: Route[] = [
  {
    method: 'GET',
    path: '/channels/:c/messages',
    run: (fake, { seg, query }) => {
      fake.channel(seg[1]);
      const limit = Math.min(Math.max(Number(query.get('limit') ?? 50), 1), 100);
      let list = fake.channelMessages(seg[1]);
      const after = query.get('after');
      const before = query.get('before');
      if (after) {
        list = list.filter((m) => compareSnowflakes(m.id, after) > 0).slice(0, limit);
      } else {
        if (before) list = list.filter((m) => compareSnowflakes(m.id, before) < 0);
        list = list.slice(-limit);
      }
      // Discord answers newest first.
      return [200, list.reverse().map((m) => fake.messageOut(m))];
    },
  },
  {
    method: 'GET',
    path: '/channels/:c/messages/:m',
    run: (fake, { seg }) => [200, fake.messageOut(fake.message(seg[1], seg[3]))],
  },
  {
    method: 'POST',
    path: '/channels/:c/messages',
    run: (fake, { seg, body }) => {
      const c = fake.channel(seg[1]);
      const content = typeof body.content === 'string' ? body.content : '';
      if (!content) throw new HttpError(400, 50006, 'Cannot send an empty message');
      if (content.length > 2000) {
        throw new HttpError(
          400,
          50035,
          'Invalid Form Body: content: Must be 2000 or fewer in length.',
        );
      }
      const nonce = body.nonce === undefined ? undefined : String(body.nonce);
      if (nonce && body.enforce_nonce) {
        const same = fake
          .channelMessages(c.id)
          .find((m) => m.nonce === nonce && m.authorId === fake.bot.id);
        if (same) return [200, fake.messageOut(same)];
      }
      const m = fake.storeMessage({
        channelId: c.id,
        guildId: c.guildId,
        authorId: fake.bot.id,
        content,
        nonce,
        replyToMessageId: body.message_reference?.message_id,
      });
      return [200, fake.messageOut(m)];
    },
  },
  {
    method: 'DELETE',
    path: '/channels/:c/messages/:m',
    run: (fake, { seg }) => {
      fake.channel(seg[1]);
      fake.deleteMessage(seg[1], seg[3]);
      return [204];
    },
  },
];
