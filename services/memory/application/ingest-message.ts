import { Injectable, Logger } from '@nestjs/common';
import { RequestContext } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';
import type { MessageCreated } from '@dirigent/contracts';
import { DossierRepository } from '../adapters/postgres/dossier.repository';
import { highlightId } from '../adapters/postgres/highlight.repository';
import type { Row } from '../adapters/postgres/sql';
import { EpochTimer } from '../adapters/epoch-timer';
import { ConsolidateDossier } from './consolidate-dossier';
import { Indexer } from './indexer';
import { MessageArchive } from './message-archive';
import { MessageCredit, type Outcome } from './message-credit';
import { MomentBatches } from './moment-batches';
import { WriteBehind } from './write-behind';

/**
 * Messages written per transaction at most, and transactions at once. Large batches: the
 * statements per batch are few and fixed (the message insert, the authors' counters), so
 * their cost, and the commit's, is shared by up to this many messages. (Batches of 512 and
 * a window of 1,024 deliveries measured no better on the memory-scale bench's burst.)
 */
export const INGEST_BATCH = { maxBatch: 1024, maxConcurrent: 2 };
/**
 * Dossier consolidations running at once. Each reads the author's recent messages, facts
 * and dossier and writes the body; under a live guild's load every author came due within
 * seconds of each other and their reads took the pool from the ingest (dozens of acquires
 * waiting on the memory-scale bench). The others wait their turn, one entry per author.
 */
const CONSOLIDATING_AT_ONCE = 2;

/**
 * A Discord message enters memory: archived once (by Discord id), counted in its author's
 * dossier, its self-disclosures learned as facts, the messages it answers or quotes
 * credited (and kept as highlights when that makes them moments), then embedded, and the
 * channel's epoch timer re-armed. Messages delivered together are written together (one
 * transaction, a few multi-row statements); each delivery is acknowledged only after the
 * commit.
 */
@Injectable()
export class IngestMessage {
  // A batch is written outside any one delivery's request context: it gets its own.
  private readonly buffer = new WriteBehind<MessageCreated>(
    (es) => RequestContext.create(this.em, () => this.runBatch(es)),
    INGEST_BATCH,
  );

  private readonly log = new Logger('memory:ingest');
  /** Authors offered or waiting to be (one entry each), the waiting ones, and the running. */
  private readonly consolidating = new Set<string>();
  private readonly due: Row[] = [];
  private offering = 0;

  constructor(
    private readonly em: EntityManager,
    private readonly archive: MessageArchive,
    private readonly credit: MessageCredit,
    private readonly dossiers: DossierRepository,
    private readonly indexer: Indexer,
    private readonly timer: EpochTimer,
    private readonly consolidate: ConsolidateDossier,
    private readonly batches: MomentBatches,
  ) {}

  /** Resolves once the message is stored (with those delivered alongside it). */
  run(e: MessageCreated): Promise<void> {
    return this.buffer.add(e);
  }

  async runBatch(events: MessageCreated[]): Promise<void> {
    // Embedded first (one call for the batch), stored with the messages in one transaction.
    const embedded = await this.embed(events);
    const { outcomes, counters, stored } = await this.em.transactional(async () => {
      const stored = await this.archive.insert(events);
      const byKey = new Map(events.map((e) => [`${e.guildId}:${e.messageId}`, e]));
      const news = stored.map((row) => ({
        row,
        e: byKey.get(`${row.guild_id}:${row.message_id}`)!,
      }));
      for (const [guildId, group] of groupBy(news, (n) => n.e.guildId)) {
        const vectors = group.flatMap(({ e }) => {
          const v = embedded?.vectors.get(e);
          return v ? [{ layer: 'archive' as const, refId: e.messageId, vector: v }] : [];
        });
        if (vectors.length) await this.indexer.store(guildId, embedded!.model, vectors);
      }
      const counters = await this.dossiers.countMessages(
        [...groupBy(news, (n) => `${n.e.guildId}:${n.e.authorId}`).values()].map((g) => ({
          guildId: g[0].e.guildId,
          userId: g[0].e.authorId,
          userName: g.reduce<string | undefined>((name, n) => n.e.authorName ?? name, undefined),
          messages: g.length,
          chars: g.reduce((sum, n) => sum + n.e.content.length, 0),
          lastSeenAt: new Date(Math.max(...g.map((n) => Date.parse(n.e.createdAt)))),
        })),
      );
      const outcomes: Outcome[] = [];
      for (const { row, e } of news) outcomes.push(await this.credit.run(e, row));
      return { outcomes, counters, stored };
    });
    await this.archive.publish(stored);
    await this.armTimers(events);
    for (const [guildId, group] of groupBy(outcomes, (o) => o.e.guildId)) {
      await this.indexer.index(
        guildId,
        group.flatMap(({ e, facts, highlighted }) => [
          ...facts.map((f) => ({
            layer: 'dossiers' as const,
            refId: f.id,
            text: `${e.authorName ?? ''} ${f.statement}`,
          })),
          ...highlighted.map((h) => ({
            layer: 'highlights' as const,
            refId: highlightId(h.messageId),
            text: h.text,
          })),
        ]),
      );
    }
    for (const c of counters.values()) this.offerConsolidation(c);
    await this.batches
      .count(outcomes.map((o) => o.e))
      .catch((e: Error) => this.log.warn(`moment batch not armed: ${e.message}`));
  }

  /**
   * Offers an author's new counters to the consolidation job without holding up the
   * batch's acks (a model call can take seconds). Nothing is lost if this process dies
   * first: the counters are reset only by the consolidation, so the author's next message
   * offers them again. One offer per author at a time, a few at once in all.
   */
  private offerConsolidation(counters: Row): void {
    const key = `${counters.guild_id}:${counters.user_id}`;
    if (this.consolidating.has(key)) return;
    this.consolidating.add(key);
    this.due.push(counters);
    this.consolidateDue();
  }

  private consolidateDue(): void {
    while (this.offering < CONSOLIDATING_AT_ONCE && this.due.length) {
      const c = this.due.shift()!;
      this.offering++;
      void this.consolidate
        .maybe(c.guild_id, c.user_id, c)
        .catch((e: Error) => this.log.warn(`dossier consolidation not offered: ${e.message}`))
        .finally(() => {
          this.offering--;
          this.consolidating.delete(`${c.guild_id}:${c.user_id}`);
          this.consolidateDue();
        });
    }
  }

  /** Every message (stored or a duplicate) re-arms its channel's timer: the newest counts. */
  private async armTimers(events: MessageCreated[]): Promise<void> {
    await Promise.all(
      [...groupBy(events, (e) => `${e.guildId}:${e.channelId}`).values()].map((group) =>
        this.timer.armAfter(
          group[0].guildId,
          group[0].channelId,
          Math.max(...group.map((e) => Date.parse(e.createdAt))),
        ),
      ),
    );
  }

  /**
   * The batch's vectors (one embedder call per guild); null when the embedder is down, or
   * when the archive index derives them from the text itself.
   */
  private async embed(events: MessageCreated[]) {
    if (this.indexer.archiveDerived) return null;
    const vectors = new Map<MessageCreated, number[]>();
    let model = '';
    for (const [guildId, group] of groupBy(events, (e) => e.guildId)) {
      const texts = group.map((e) => e.content);
      const found = await this.indexer.queryMany(guildId, texts);
      if (!found) continue;
      model = found.model;
      group.forEach((e, i) => vectors.set(e, found.vectors[i]));
    }
    return model ? { model, vectors } : null;
  }
}

function groupBy<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const group = out.get(k);
    if (group) group.push(it);
    else out.set(k, [it]);
  }
  return out;
}
