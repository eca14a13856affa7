import { Migration } from '@mikro-orm/migrations';

/**
 * The offline hashed embedder's archive vectors are derived from the messages in process
 * now (memory's archive index), never stored: the rows stored before go. Vectors of other
 * layers and of other models stay.
 */
export class Migration20261128113000_memory_derived_vectors extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `delete from "memory_embedding" where "layer" = 'archive' and "model" like 'dirigent-hashed-ngram-v1/%';`,
    );
  }

  override async down(): Promise<void> {
    // Nothing to restore: the vectors are a function of the messages' text.
  }
}
