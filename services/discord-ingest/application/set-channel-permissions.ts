import { Injectable } from '@nestjs/common';
import { OverwriteType, type PermissionOverwriteOptions } from 'discord.js';
import {
  DomainError,
  ErrorCodes,
  type PermissionOverwriteInput,
  type SetChannelPermissionsRequest,
} from '@dirigent/contracts';
import { DiscordGuilds } from '../adapters/discord-guilds';

/** discord.js's per-flag options: allowed flags true, denied false (deny wins a tie). */
export function overwriteOptions(o: PermissionOverwriteInput): PermissionOverwriteOptions {
  const options: PermissionOverwriteOptions = {};
  for (const flag of o.allow) options[flag] = true;
  for (const flag of o.deny) options[flag] = false;
  return options;
}

/**
 * Sets one overwrite per listed role or member on a channel (each replaces that target's
 * overwrite; targets not listed keep theirs), in the order given.
 */
@Injectable()
export class SetChannelPermissions {
  constructor(private readonly discord: DiscordGuilds) {}

  async run(r: SetChannelPermissionsRequest): Promise<Record<string, never>> {
    const guild = await this.discord.guild(r.guildId);
    const channel = await this.discord.channel(guild, r.channelId);
    if (!('permissionOverwrites' in channel)) {
      throw new DomainError(
        ErrorCodes.BAD_REQUEST,
        `channelId: ${r.channelId} is a thread; set its parent's permissions`,
      );
    }
    for (const o of r.overwrites) {
      const type = o.type === 'role' ? OverwriteType.Role : OverwriteType.Member;
      await this.discord.call(`permissions of ${o.id} in ${channel.id}`, () =>
        channel.permissionOverwrites.create(o.id, overwriteOptions(o), { type }),
      );
    }
    return {};
  }
}
