import { Migration } from '@mikro-orm/migrations';

/** The full-text indexes a search reads on every call (all layers but the archive). */
const LAYER_INDEXES = [
  'memory_highlight_tsv_idx',
  'memory_epoch_tsv_idx',
  'memory_lore_tsv_idx',
  'memory_fact_tsv_idx',
  'memory_dossier_tsv_idx',
];

/**
 * The layers' full-text (GIN) indexes take each write at once instead of in a pending
 * list. A pending list is merged only by (auto)vacuum or once it outgrows
 * `gin_pending_list_limit` (4 MB); until then every search reads all of it. On a database
 * without autovacuum, thousands of lore and highlight rows piled up there, and a search's
 * statement took 25-70 ms instead of a few. These tables take far fewer writes than the
 * archive, whose index keeps its pending list (it serves only the search of a guild whose
 * word index is still loading).
 */
export class Migration20261129060000_memory_layer_gin_direct extends Migration {
  override async up(): Promise<void> {
    for (const index of LAYER_INDEXES) {
      this.addSql(`alter index "${index}" set (fastupdate = off);`);
      // What the pending list holds already goes into the index proper.
      this.addSql(`select gin_clean_pending_list('"${index}"'::regclass);`);
    }
  }

  override async down(): Promise<void> {
    for (const index of LAYER_INDEXES) this.addSql(`alter index "${index}" reset (fastupdate);`);
  }
}
