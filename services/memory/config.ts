import { IsIn } from 'class-validator';
import { BaseConfig, EnvInt, EnvPort } from '@dirigent/service-kit';

export class MemoryConfig extends BaseConfig {
  @EnvPort() MEMORY_PORT = 3004;
  /** Messages of the guild in the live transcript. */
  @EnvInt({ min: 1, max: 500 }) DIRIGENT_LIVE_WINDOW = 40;
  /** Silence after which a channel's epoch closes. */
  @EnvInt({ min: 1 }) DIRIGENT_EPOCH_GAP_MS = 10_800_000;
  /** `gateway`: purpose `embed` through the model gateway; `local`: the hashed embedder in process. */
  @IsIn(['gateway', 'local'], { message: '$property must be gateway or local' })
  DIRIGENT_MEMORY_EMBEDDER: 'gateway' | 'local' = 'gateway';
  /** Asked of the embedding model (0: its native size, for servers without `dimensions`). */
  @EnvInt({ min: 0, max: 4096 }) DIRIGENT_MEMORY_EMBED_DIMENSIONS = 512;
  /** `auto` uses pgvector when the extension is installed, `real[]` scored in process otherwise. */
  @IsIn(['auto', 'array', 'pgvector'], { message: '$property must be auto, array or pgvector' })
  DIRIGENT_MEMORY_VECTORS: 'auto' | 'array' | 'pgvector' = 'auto';
  /** Time allowed for a gateway call (embed, extract, epoch-summarize). */
  @EnvInt({ min: 100 }) DIRIGENT_MEMORY_GATEWAY_TIMEOUT_MS = 10_000;
}
