import { cosine, hashedEmbedding } from '../src/embedder';
import type { MemoryReader } from '../src/lenses/lens';
import type { MemoryItem, ScoredItem } from '../src/types';

export const GUILD = '100';
export const OTHER_GUILD = '999';
export const GENERAL = '200';
export const RANDOM = '201';
export const ALICE = '301';
export const BOB = '302';
export const BOT = '309';
export const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);

let seq = 0;
export function message(
  channelId: string,
  authorId: string,
  text: string,
  at: number,
  extra: Partial<MemoryItem> = {},
): MemoryItem {
  const id = String(500000 + ++seq);
  return {
    layer: 'archive',
    id,
    messageId: id,
    channelId,
    authorId,
    authorName: { [ALICE]: 'Alice', [BOB]: 'Bob', [BOT]: 'Dit' }[authorId],
    authorIsBot: authorId === BOT,
    text,
    at,
    ...extra,
  };
}

/** A guild's memory held in arrays: the reader the lenses are tested against. */
export class MemoryWorld implements MemoryReader {
  archive: (MemoryItem & { guildId: string })[] = [];
  dossierItems: (MemoryItem & { guildId: string })[] = [];
  loreItems: (MemoryItem & { guildId: string })[] = [];
  epochItems: (MemoryItem & { guildId: string })[] = [];
  highlightItems: (MemoryItem & { guildId: string })[] = [];

  add(guildId: string, ...items: MemoryItem[]): this {
    for (const it of items) {
      const row = { ...it, guildId };
      if (it.layer === 'archive') this.archive.push(row);
      else if (it.layer === 'dossiers') this.dossierItems.push(row);
      else if (it.layer === 'lore') this.loreItems.push(row);
      else if (it.layer === 'epochs') this.epochItems.push(row);
      else if (it.layer === 'highlights') this.highlightItems.push(row);
    }
    return this;
  }

  async recent(guildId: string, q: Parameters<MemoryReader['recent']>[1]) {
    return this.archive
      .filter(
        (m) =>
          m.guildId === guildId &&
          (q.channelId === undefined || m.channelId === q.channelId) &&
          (q.excludeChannelId === undefined || m.channelId !== q.excludeChannelId) &&
          (q.authorId === undefined || m.authorId === q.authorId) &&
          (q.authorIsBot === undefined || !!m.authorIsBot === q.authorIsBot) &&
          (q.since === undefined || m.at >= q.since) &&
          (q.until === undefined || m.at <= q.until),
      )
      .sort((a, b) => b.at - a.at)
      .slice(0, q.limit);
  }

  async search(guildId: string, query: string, q: Parameters<MemoryReader['search']>[2]) {
    const layers = q.layers ?? ['archive', 'highlights', 'epochs', 'lore', 'dossiers'];
    const pool = [
      ...this.archive,
      ...this.highlightItems,
      ...this.epochItems,
      ...this.loreItems,
      ...this.dossierItems,
    ].filter(
      (m) =>
        m.guildId === guildId &&
        layers.includes(m.layer as never) &&
        (q.channelId === undefined || m.channelId === q.channelId) &&
        (q.excludeChannelId === undefined || m.channelId !== q.excludeChannelId) &&
        (q.authorId === undefined || m.authorId === q.authorId),
    );
    const qv = hashedEmbedding(query);
    return pool
      .map((m): ScoredItem => ({ ...m, score: cosine(qv, hashedEmbedding(m.text)) }))
      .filter((m) => m.score > 0.1)
      .sort((a, b) => b.score - a.score)
      .slice(0, q.k);
  }

  async dossiers(guildId: string, userIds: string[]) {
    return this.dossierItems.filter(
      (d) => d.guildId === guildId && d.authorId && userIds.includes(d.authorId),
    );
  }

  async lore(guildId: string, limit: number) {
    return this.loreItems.filter((l) => l.guildId === guildId).slice(0, limit);
  }

  async epochs(guildId: string, q: { limit: number; channelId?: string }) {
    return this.epochItems
      .filter((e) => e.guildId === guildId && (!q.channelId || e.channelId === q.channelId))
      .sort((a, b) => b.at - a.at)
      .slice(0, q.limit);
  }

  async highlights(guildId: string, q: { limit: number }) {
    return this.highlightItems.filter((h) => h.guildId === guildId).slice(0, q.limit);
  }

  async sample(guildId: string, q: { limit: number; seed: number }) {
    const rows = this.archive.filter((m) => m.guildId === guildId);
    const out: MemoryItem[] = [];
    for (let i = 0; i < Math.min(q.limit, rows.length); i++) {
      out.push(rows[(q.seed + i * 7919) % rows.length]);
    }
    return [...new Map(out.map((o) => [o.id, o])).values()];
  }
}
