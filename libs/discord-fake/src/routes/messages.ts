import { HttpError } from '../http-error';
import type { FakePoll } from '../model';
import { compareSnowflakes } from '@dirigent/contracts';
import type { Route } from './route';

/** A poll of a message body, checked as Discord checks it (2..10 answers, 1..768 hours). */
function readPoll(p: any): FakePoll {
  const question = p.question?.text;
  if (typeof question !== 'string' || !question || question.length > 300) {
    throw new HttpError(400, 50035, 'Invalid Form Body: poll.question.text');
  }
  const answers = Array.isArray(p.answers) ? p.answers.map((a: any) => a?.poll_media?.text) : [];
  if (answers.length < 1 || answers.length > 10) {
    throw new HttpError(400, 50035, 'Invalid Form Body: poll.answers');
  }
  if (answers.some((a: unknown) => typeof a !== 'string' || !a || a.length > 55)) {
    throw new HttpError(400, 50035, 'Invalid Form Body: poll.answers.poll_media.text');
  }
  const hours = p.duration === undefined ? 24 : Number(p.duration);
  if (!Number.isInteger(hours) || hours < 1 || hours > 768) {
    throw new HttpError(400, 50035, 'Invalid Form Body: poll.duration');
  }
  return {
    question,
    answers,
    expiry: new Date(Date.now() + hours * 3_600_000).toISOString(),
    allowMultiselect: !!p.allow_multiselect,
  };
}

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
      const poll = body.poll ? readPoll(body.poll) : undefined;
      if (!content && !poll) throw new HttpError(400, 50006, 'Cannot send an empty message');
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
        poll,
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
