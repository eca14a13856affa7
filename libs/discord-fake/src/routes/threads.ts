import { HttpError } from '../http-error';
import { Permission } from '../permissions';
import { threadJson } from '../serialize';
import type { FakeDiscord } from '../fake-discord';
import type { RestAnswer } from './route';
import type { Route } from './route';

const ARCHIVE_MINUTES = [60, 1440, 4320, 10080];

function openThread(
  fake: FakeDiscord,
  channelId: string,
  body: any,
  messageId?: string,
): RestAnswer {
  const parent = fake.channel(channelId);
  if (parent.type !== 0 && parent.type !== 5) {
    throw new HttpError(400, 50024, 'Cannot execute action on this channel type');
  }
  if (typeof body.name !== 'string' || !body.name || body.name.length > 100) {
    throw new HttpError(400, 50035, 'Invalid Form Body: name');
  }
  const archive = body.auto_archive_duration;
  if (archive !== undefined && archive !== null && !ARCHIVE_MINUTES.includes(Number(archive))) {
    throw new HttpError(400, 50035, 'Invalid Form Body: auto_archive_duration');
  }
  fake.admin.requireBot(parent.guildId, Permission.CreatePublicThreads, parent);
  const thread = fake.createThread(parent.id, body.name, {
    messageId,
    autoArchiveMinutes: archive ? Number(archive) : undefined,
  });
  return [201, threadJson(thread)];
}

/** Threads opened by the bot, standalone or on a message. */
export const threadRoutes: Route[] = [
  {
    method: 'POST',
    path: '/channels/:c/threads',
    run: (fake, { seg, body }) => openThread(fake, seg[1], body),
  },
  {
    method: 'POST',
    path: '/channels/:c/messages/:m/threads',
    run: (fake, { seg, body }) => openThread(fake, seg[1], body, seg[3]),
  },
];
