/** The permission bits Dirigent grants or denies on channels it creates. */
export const Bits = {
  ManageChannels: 1n << 4n,
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
 * each member and the moderator can talk; the bot can also manage messages and webhooks.
 *
 * @example
 * privateChannelOverwrites({ guildId: 'g', memberIds: ['a'], moderatorId: 'm', botId: 'b' });
 */
export function privateChannelOverwrites(opts: {
  guildId: string;
  memberIds: string[];
  moderatorId: string;
  botId: string;
}): OverwriteSpec[] {
  const out: OverwriteSpec[] = [{ id: opts.guildId, type: 0, allow: 0n, deny: Bits.ViewChannel }];
  const seen = new Set<string>([opts.guildId]);
  const add = (id: string, allow: bigint) => {
    if (seen.has(id)) return;
    seen.add(id);
    out.push({ id, type: 1, allow, deny: 0n });
  };
  add(opts.botId, RUN);
  add(opts.moderatorId, TALK);
  for (const id of opts.memberIds) add(id, TALK);
  return out;
}
