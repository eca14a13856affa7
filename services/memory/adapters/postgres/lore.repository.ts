import { EntityRepository } from '@mikro-orm/postgresql';
import type { MemoryItem } from '@dirigent/memory-domain';
import type { MemoryLore } from './lore.entity';
import { fullTextIds, ms, rowsByIds, sql, type Row } from './sql';

export function loreItem(r: Row): MemoryItem {
  return {
    layer: 'lore',
    id: r.id,
    text: r.text,
    at: ms(r.valid_from)!,
    validFrom: ms(r.valid_from),
    validUntil: ms(r.valid_until),
  };
}

/** Group lore: relational patterns about the guild, paraphrase by design. */
export class LoreRepository extends EntityRepository<MemoryLore> {
  async add(guildId: string, id: string, text: string, epochId: string, at: Date): Promise<void> {
    await sql(
      this.em,
      `insert into memory_lore (id, guild_id, text, source_epoch_id, valid_from) values (?, ?, ?, ?, ?)
       on conflict (id) do nothing`,
      [id, guildId, text, epochId, at],
    );
  }

  /** Current lore first, newest first. */
  async list(guildId: string, limit: number): Promise<MemoryItem[]> {
    const rows = await sql(
      this.em,
      `select * from memory_lore where guild_id = ? order by (valid_until is null) desc, valid_from desc limit ?`,
      [guildId, limit],
    );
    return rows.map(loreItem);
  }

  byIds(guildId: string, ids: string[]): Promise<Row[]> {
    return rowsByIds(this.em, 'memory_lore', guildId, ids);
  }

  fullText(guildId: string, query: string, limit: number) {
    return fullTextIds(this.em, 'memory_lore', 'valid_from', guildId, query, limit);
  }
}
