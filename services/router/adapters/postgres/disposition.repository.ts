import { EntityManager } from '@mikro-orm/postgresql';
import type { DispositionUpsertRequest } from '@dirigent/contracts';
import { canonicalDispositions, type Disposition } from '@dirigent/router-domain';
import { DispositionStore } from '../../application/stores';
import { DispositionRow } from './disposition.entity';
import { DispositionSetRow } from './disposition-set.entity';

const CACHE_MS = 2000;

function toDisposition(r: DispositionRow): Disposition {
  return {
    id: r.id,
    name: r.name,
    reasoningDepth: r.reasoningDepth as Disposition['reasoningDepth'],
    contextStrategy: r.contextStrategy,
    voice: r.voice as Disposition['voice'],
    outputShape: r.outputShape as Disposition['outputShape'],
    searchPosture: r.searchPosture as Disposition['searchPosture'],
    riskAppetite: r.riskAppetite as Disposition['riskAppetite'],
    ...(r.speculativeOnly ? { speculativeOnly: true } : {}),
    ...(r.selfFollowupHint ? { selfFollowupHint: r.selfFollowupHint } : {}),
    weight: r.weight,
  };
}

/** `dispositions`, cached briefly for the routing path; edits clear the cache. */
export class PostgresDispositions extends DispositionStore {
  private cache?: { at: number; list: Promise<Disposition[]> };
  /** The last list read (a resolved promise), while the cache is refreshed. */
  private read?: Promise<Disposition[]>;
  /**
   * Sets kept or being kept (a set changes only when an admin edits one): the decisions on
   * a set wait for one insert of it, not one each.
   */
  private readonly kept = new Map<string, Promise<void>>();

  constructor(private readonly em: EntityManager) {
    super();
  }

  /**
   * The list read last; a new read starts when the last began {@link CACHE_MS} ago, and is
   * waited for only when none has come back yet (an edit of this process clears both, so
   * it is seen at once).
   */
  list(): Promise<Disposition[]> {
    const cache = this.cache;
    if (!cache || Date.now() - cache.at >= CACHE_MS) {
      const list = this.em
        .fork()
        .find(DispositionRow, {}, { orderBy: { id: 'asc' } })
        .then((rows) => rows.map(toDisposition));
      this.cache = { at: Date.now(), list };
      list.then(
        () => {
          if (this.cache?.list === list) this.read = list;
        },
        () => {
          if (this.cache?.list === list) this.cache = undefined;
        },
      );
    }
    return this.read ?? this.cache!.list;
  }

  remember(setId: string, dispositions: readonly Disposition[]): Promise<void> {
    let kept = this.kept.get(setId);
    if (!kept) {
      kept = this.em
        .fork()
        .getConnection()
        .execute(
          `insert into "disposition_sets" ("id", "dispositions") values (?, ?) on conflict ("id") do nothing`,
          [setId, JSON.stringify(canonicalDispositions(dispositions))],
        )
        .then(() => undefined);
      const k = kept;
      this.kept.set(setId, k);
      k.catch(() => this.kept.get(setId) === k && this.kept.delete(setId));
    }
    return kept;
  }

  async snapshot(setId: string): Promise<Disposition[] | null> {
    const row = await this.em.fork().findOne(DispositionSetRow, { id: setId });
    return row?.dispositions ?? null;
  }

  async upsert(patch: DispositionUpsertRequest): Promise<Disposition> {
    const em = this.em.fork();
    let row = await em.findOne(DispositionRow, { id: patch.id });
    const fields = Object.fromEntries(
      Object.entries(patch).filter(([k, v]) => k !== 'id' && v !== undefined),
    ) as Partial<DispositionRow>;
    if (!row) {
      const missing = [
        'reasoningDepth',
        'contextStrategy',
        'voice',
        'outputShape',
        'searchPosture',
      ].filter((k) => (fields as Record<string, unknown>)[k] === undefined);
      if (missing.length) throw new MissingFields(missing);
      row = em.create(DispositionRow, {
        id: patch.id,
        name: patch.name ?? patch.id,
        riskAppetite: 'safe',
        ...fields,
      } as DispositionRow);
    } else {
      em.assign(row, fields);
    }
    row.updatedAt = new Date();
    await em.flush();
    this.cache = this.read = undefined;
    return toDisposition(row);
  }

  async remove(id: string): Promise<boolean> {
    const n = await this.em.fork().nativeDelete(DispositionRow, { id });
    this.cache = this.read = undefined;
    return n > 0;
  }
}

/** A new disposition needs every dimension. */
export class MissingFields extends Error {
  constructor(readonly fields: string[]) {
    super(`a new disposition needs ${fields.join(', ')}`);
  }
}
