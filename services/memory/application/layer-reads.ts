import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { MemoryItem, RankedList, SearchLayer } from '@dirigent/memory-domain';
import { bodyItem, DossierRepository, factRowItem } from '../adapters/postgres/dossier.repository';
import { EpochRepository, epochItem } from '../adapters/postgres/epoch.repository';
import { HighlightRepository, highlightItem } from '../adapters/postgres/highlight.repository';
import { LoreRepository, loreItem } from '../adapters/postgres/lore.repository';
import { MessageRepository, messageItem } from '../adapters/postgres/message.repository';
import { ms, selectMany, type ArchiveFilter, type Row } from '../adapters/postgres/sql';

export const ranked = (rows: Row[], layer: SearchLayer): RankedList =>
  rows.map((r) => ({ key: `${layer}:${r.id}`, at: ms(r.at_ ?? r.created_at) ?? 0 }));

/** A message read back; the message a superseded fact came from is as stale as the fact. */
function archiveItem(r: Row): MemoryItem {
  const item = messageItem(r);
  if (r.stale) Object.assign(item, { validFrom: 0, validUntil: 0 });
  return item;
}

/**
 * A search's reads of the guild's layers in Postgres: the layers' full text, sent at once
 * and awaited with the rows of every ranked key (one statement each), and the archive's full
 * text and named authors while the in-process word index is still loading.
 */
@Injectable()
export class LayerReads {
  constructor(
    private readonly em: EntityManager,
    private readonly messages: MessageRepository,
    private readonly highlights: HighlightRepository,
    private readonly epochs: EpochRepository,
    private readonly lore: LoreRepository,
    private readonly dossiers: DossierRepository,
  ) {}

  /**
   * The other layers' full-text matches, in one statement (sent at once, awaited by
   * `read`): their rows come with the columns their items need.
   */
  fullText(guildId: string, query: string, has: (l: SearchLayer) => boolean, candidates: number) {
    return selectMany(this.em, [
      has('highlights') ? this.highlights.fullText(guildId, query, candidates) : null,
      has('epochs') ? this.epochs.fullText(guildId, query, candidates) : null,
      has('lore') ? this.lore.fullText(guildId, query, candidates) : null,
      has('dossiers') ? this.dossiers.fullTextFacts(guildId, query, candidates) : null,
      has('dossiers') ? this.dossiers.fullTextBodies(guildId, query, 10) : null,
    ]);
  }

  /**
   * The rows of every key the id-only lists hold (the archive's ranking, vectors, named
   * authors) in one statement, beside the layers' full text sent before: what was deleted
   * meanwhile is simply absent.
   */
  async read(
    guildId: string,
    layerText: Promise<Row[][]>,
    idLists: RankedList[],
  ): Promise<{ fullText: RankedList[]; items: Map<string, MemoryItem> }> {
    const wanted = new Map<string, Set<string>>();
    for (const list of idLists) {
      for (const { key } of list) {
        const colon = key.indexOf(':');
        const layer = key.slice(0, colon);
        let ids = wanted.get(layer);
        if (!ids) wanted.set(layer, (ids = new Set()));
        ids.add(key.slice(colon + 1));
      }
    }
    const ids = (layer: SearchLayer) => [...(wanted.get(layer) ?? [])];
    const dossierIds = ids('dossiers');
    const [[hlFt, epFt, loreFt, factFt, bodyFt], [msgs, hls, eps, lores, facts, bodies]] =
      await Promise.all([
        layerText,
        selectMany(this.em, [
          this.messages.byIds(guildId, ids('archive')),
          this.highlights.byIds(guildId, ids('highlights')),
          this.epochs.byIds(guildId, ids('epochs')),
          this.lore.byIds(guildId, ids('lore')),
          this.dossiers.factsByIds(
            guildId,
            dossierIds.filter((i) => i.startsWith('fact-')),
          ),
          this.dossiers.bodiesByIds(
            guildId,
            dossierIds.filter((i) => i.startsWith('dossier-')).map((i) => i.slice(8)),
          ),
        ]),
      ]);
    const items = new Map<string, MemoryItem>();
    const put = (rows: Row[], item: (r: Row) => MemoryItem) => {
      for (const r of rows) {
        const it = item(r);
        items.set(`${it.layer}:${it.id}`, it);
      }
    };
    put(msgs, archiveItem);
    put([...hlFt, ...hls], highlightItem);
    put([...epFt, ...eps], epochItem);
    put([...loreFt, ...lores], loreItem);
    put([...factFt, ...facts], factRowItem);
    put([...bodyFt, ...bodies], bodyItem);
    return {
      fullText: [
        ranked(hlFt, 'highlights'),
        ranked(epFt, 'epochs'),
        ranked(loreFt, 'lore'),
        ranked(factFt, 'dossiers'),
        ranked(bodyFt, 'dossiers'),
      ],
      items,
    };
  }

  /** The archive by Postgres full text, while this process's word index is still loading. */
  async postgresArchive(guildId: string, query: string, q: ArchiveFilter, candidates: number) {
    const [fullText, named] = await Promise.all([
      this.messages.fullText(guildId, query, q, candidates),
      this.messages.byNamedAuthors(guildId, query, q, candidates),
    ]);
    return { fullText, named };
  }
}
