import type { FakeDiscord } from '../fake-discord';
import { HttpError } from '../http-error';
import type { FakeCommand } from '../model';
import { commandJson } from '../serialize';
import type { Route } from './route';

function commandsOf(fake: FakeDiscord, app: string, guildId: string | null): FakeCommand[] {
  return [...fake.commands.values()].filter(
    (c) => c.applicationId === app && c.guildId === guildId,
  );
}

/** Bulk overwrite: same name keeps its id (as on Discord), missing names are deleted. */
function overwriteCommands(
  fake: FakeDiscord,
  app: string,
  guildId: string | null,
  body: unknown,
): FakeCommand[] {
  if (!Array.isArray(body)) throw new HttpError(400, 50035, 'Invalid Form Body');
  const existing = commandsOf(fake, app, guildId);
  for (const c of existing) fake.commands.delete(c.id);
  return body.map((def: any) => {
    if (typeof def.name !== 'string' || !/^[-_\p{L}\p{N}]{1,32}$/u.test(def.name)) {
      throw new HttpError(400, 50035, `Invalid Form Body: name ${def.name}`);
    }
    const prior = existing.find((c) => c.name === def.name);
    const command: FakeCommand = {
      id: prior?.id ?? fake.ids.next(),
      applicationId: app,
      guildId,
      name: def.name,
      description: String(def.description ?? ''),
      type: Number(def.type ?? 1),
      options: def.options ?? [],
      defaultMemberPermissions: def.default_member_permissions ?? null,
      version: fake.ids.next(),
    };
    fake.commands.set(command.id, command);
    return command;
  });
}

/** Application commands, guild and global: list and bulk overwrite. */
export const commandRoutes: Route[] = [
  {
    method: 'GET',
    path: '/applications/:app/guilds/:g/commands',
    run: (fake, { seg }) => [200, commandsOf(fake, seg[1], seg[3]).map(commandJson)],
  },
  {
    method: 'PUT',
    path: '/applications/:app/guilds/:g/commands',
    run: (fake, { seg, body }) => {
      fake.guild(seg[3]);
      return [200, overwriteCommands(fake, seg[1], seg[3], body).map(commandJson)];
    },
  },
  {
    method: 'GET',
    path: '/applications/:app/commands',
    run: (fake, { seg }) => [200, commandsOf(fake, seg[1], null).map(commandJson)],
  },
  {
    method: 'PUT',
    path: '/applications/:app/commands',
    run: (fake, { seg, body }) => [
      200,
      overwriteCommands(fake, seg[1], null, body).map(commandJson),
    ],
  },
];
