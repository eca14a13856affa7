import { HttpError } from '../http-error';
import { channelJson } from '../serialize';
import type { Route } from './route';

const bits = (v: unknown, field: string): string => {
  if (v === undefined || v === null) return '0';
  if (!/^\d{1,20}$/.test(String(v))) throw new HttpError(400, 50035, `Invalid Form Body: ${field}`);
  return String(v);
};

/** A channel itself, one permission overwrite of it, and the bot's typing indicator in it. */
export const channelRoutes: Route[] = [
  {
    method: 'GET',
    path: '/channels/:c',
    run: (fake, { seg }) => [200, channelJson(fake.channel(seg[1]))],
  },
  {
    method: 'PATCH',
    path: '/channels/:c',
    run: (fake, { seg, body }) => {
      const change: { name?: string; parentId?: string | null } = {};
      if (body.name !== undefined) change.name = String(body.name);
      if (body.parent_id !== undefined)
        change.parentId = body.parent_id ? String(body.parent_id) : null;
      return [200, channelJson(fake.admin.editChannel(seg[1], change))];
    },
  },
  {
    method: 'DELETE',
    path: '/channels/:c',
    run: (fake, { seg }) => [200, channelJson(fake.deleteChannel(seg[1]))],
  },
  {
    method: 'PUT',
    path: '/channels/:c/permissions/:o',
    run: (fake, { seg, body }) => {
      if (body.type !== 0 && body.type !== 1) {
        throw new HttpError(400, 50035, 'Invalid Form Body: type');
      }
      fake.admin.setOverwrite(seg[1], {
        id: seg[3],
        type: body.type,
        allow: bits(body.allow, 'allow'),
        deny: bits(body.deny, 'deny'),
      });
      return [204];
    },
  },
  {
    method: 'DELETE',
    path: '/channels/:c/permissions/:o',
    run: (fake, { seg }) => {
      fake.admin.deleteOverwrite(seg[1], seg[3]);
      return [204];
    },
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
