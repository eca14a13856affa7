import { HttpError } from '../http-error';
import { roleJson } from '../serialize';
import type { Route } from './route';

const name = (body: any): string => {
  if (typeof body.name !== 'string' || !body.name || body.name.length > 100) {
    throw new HttpError(400, 50035, 'Invalid Form Body: name');
  }
  return body.name;
};

/** Discord sends `colors.primary_color` now, `color` before. */
const color = (body: any): number | undefined => {
  const c = body.colors?.primary_color ?? body.color;
  return c === undefined || c === null ? undefined : Number(c);
};

/** A guild's roles and members' roles. */
export const roleRoutes: Route[] = [
  {
    method: 'GET',
    path: '/guilds/:g/roles',
    run: (fake, { seg }) => [200, [...fake.guild(seg[1]).roles.values()].map(roleJson)],
  },
  {
    method: 'GET',
    path: '/guilds/:g/roles/:r',
    run: (fake, { seg }) => [200, roleJson(fake.admin.role(seg[1], seg[3]))],
  },
  {
    method: 'POST',
    path: '/guilds/:g/roles',
    run: (fake, { seg, body }) => {
      const role = fake.admin.createRole(seg[1], {
        name: body.name === undefined ? 'new role' : name(body),
        color: color(body),
        mentionable: body.mentionable === undefined ? undefined : !!body.mentionable,
        permissions: body.permissions === undefined ? undefined : BigInt(body.permissions),
      });
      return [200, roleJson(role)];
    },
  },
  {
    method: 'PATCH',
    path: '/guilds/:g/roles/:r',
    run: (fake, { seg, body }) => {
      const role = fake.admin.updateRole(
        seg[1],
        seg[3],
        {
          name: body.name === undefined ? undefined : name(body),
          color: color(body),
          mentionable: body.mentionable === undefined ? undefined : !!body.mentionable,
          permissions: body.permissions === undefined ? undefined : BigInt(body.permissions),
        },
        { asBot: true },
      );
      return [200, roleJson(role)];
    },
  },
  {
    method: 'PUT',
    path: '/guilds/:g/members/:u/roles/:r',
    run: (fake, { seg }) => {
      fake.admin.setMemberRole(seg[1], seg[3], seg[5], true);
      return [204];
    },
  },
  {
    method: 'DELETE',
    path: '/guilds/:g/members/:u/roles/:r',
    run: (fake, { seg }) => {
      fake.admin.setMemberRole(seg[1], seg[3], seg[5], false);
      return [204];
    },
  },
];
