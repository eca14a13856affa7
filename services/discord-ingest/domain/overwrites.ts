/** The permission bits Dirigent grants or denies on channels it creates. */
export const Bits = {
  Administrator: 1n << 3n,
  ManageChannels: 1n << 4n,
  ManageGuild: 1n << 5n,
  ViewChannel: 1n << 10n,
  SendMessages: 1n << 11n,
  ManageMessages: 1n << 13n,
  EmbedLinks: 1n << 14n,
  ReadMessageHistory: 1n << 16n,
  ManageWebhooks: 1n << 29n,
} as const;

export interface OverwriteSpec {
  id: string;
  /** 0 = role, 1 = member */
  type: 0 | 1;
  allow: bigint;
  deny: bigint;
}

const TALK = Bits.ViewChannel | Bits.SendMessages | Bits.ReadMessageHistory;
const RUN = TALK | Bits.ManageMessages | Bits.ManageWebhooks | Bits.EmbedLinks;

/**
 * Overwrites of a private channel: @everyone (whose role id is the guild id) cannot see it;
 * each member, the moderator and each of `staffRoleIds` (the roles holding Manage Server)
 * can talk; the bot can also manage messages and webhooks.
 *
 * @example
 * privateChannelOverwrites({ guildId: 'g', memberIds: ['a'], moderatorId: 'm', botId: 'b' });
 */
export function privateChannelOverwrites(opts: {
  guildId: string;
  memberIds: string[];
  moderatorId: string;
  botId: string;
  staffRoleIds?: string[];
}): OverwriteSpec[] {
  const out: OverwriteSpec[] = [{ id: opts.guildId, type: 0, allow: 0n, deny: Bits.ViewChannel }];
  const seen = new Set<string>([opts.guildId]);
  const add = (id: string, allow: bigint, type: 0 | 1 = 1) => {
    if (seen.has(id)) return;
    seen.add(id);
    out.push({ id, type, allow, deny: 0n });
  };
  add(opts.botId, RUN);
  add(opts.moderatorId, TALK);
  for (const id of opts.memberIds) add(id, TALK);
  for (const id of opts.staffRoleIds ?? []) add(id, TALK, 0);
  return out;
}
