import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Read, type Row } from './sql';

interface Queued {
  read: Read<unknown>;
  resolve: (value: unknown) => void;
  reject: (e: unknown) => void;
}

/**
 * Reads asked for together (in one synchronous stretch of code) sent to Postgres as one
 * multi-statement query, each statement with its own plan and rows. A lens asks for its
 * live window, dossiers, facts, lore and epochs at once: one round trip on one pooled
 * connection answers them all, where a query each cost a connection, a backend's parse
 * and plan, and the driver's work, on every context. A failed batch fails its reads.
 */
@Injectable()
export class ReadBatch {
  private queued: Queued[] = [];

  constructor(private readonly em: EntityManager) {}

  run<T>(read: Read<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // Sent once the code asking has run on: before the continuations of what it awaits
      // (a search's ranking), so that Postgres reads while this process ranks.
      if (!this.queued.length) queueMicrotask(() => void this.flush());
      this.queued.push({ read, resolve: resolve as (v: unknown) => void, reject });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queued;
    this.queued = [];
    try {
      const result = await sql<Row | Row[]>(
        this.em,
        batch.map((q) => q.read.sql).join(';\n'),
        batch.flatMap((q) => q.read.params),
      );
      // One statement answers its rows; several, one list of rows each.
      const each = (batch.length === 1 ? [result] : result) as Row[][];
      batch.forEach((q, i) => q.resolve(q.read.answer(each[i])));
    } catch (e) {
      for (const q of batch) q.reject(e);
    }
  }
}
