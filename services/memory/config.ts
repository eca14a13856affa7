import { Transform } from 'class-transformer';
import { IsIn, IsNumber, IsOptional, Matches, Max, Min } from 'class-validator';
import { BaseConfig, EnvBool, EnvInt, EnvPort } from '@dirigent/service-kit';

export const MEMORY_ROLES = ['all', 'queries', 'jobs'] as const;
export type MemoryRole = (typeof MEMORY_ROLES)[number];

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
  /** Time allowed for a gateway call (embed, extract, epoch-summarize, memory). */
  @EnvInt({ min: 100 }) DIRIGENT_MEMORY_GATEWAY_TIMEOUT_MS = 10_000;
  /** Fraction of messages a moment batch scores with the model (purpose `memory`); 0 = none. */
  @Transform(({ value }) =>
    typeof value === 'string' && /^\s*\d*\.?\d+\s*$/.test(value) ? Number(value) : value,
  )
  @IsNumber({}, { message: '$property must be a number' })
  @Min(0, { message: '$property must be at least 0' })
  @Max(1, { message: '$property must be at most 1' })
  DIRIGENT_MEMORY_SAMPLE_RATE = 0;
  /** Self-disclosures found by pattern are confirmed by the model (purpose `memory`). */
  @EnvBool() DIRIGENT_MEMORY_VERIFY_DISCLOSURES = false;
  /** Silence after a message that makes it the last word of its conversation (a moment signal). */
  @EnvInt({ min: 1 }) DIRIGENT_MEMORY_SILENCE_MS = 1_200_000;
  /**
   * `Subjects.memory.search` asks the model (purpose `rerank`) to reorder its best hits;
   * on a timeout or an answer without an order the cheap ranking stands.
   */
  @EnvBool() DIRIGENT_MEMORY_RERANK = false;
  /** Hits offered to the reranking model (the first ones of the cheap ranking). */
  @EnvInt({ min: 2, max: 50 }) DIRIGENT_MEMORY_RERANK_TOP = 20;
  /** Time a search waits for the reranking model before keeping the cheap order. */
  @EnvInt({ min: 50 }) DIRIGENT_MEMORY_RERANK_TIMEOUT_MS = 2_000;
  /** New messages in a channel that make its moment batch due (also run when its epoch closes). */
  @EnvInt({ min: 1, max: 10_000 }) DIRIGENT_MEMORY_MOMENT_BATCH = 50;
  /**
   * Megabytes the guilds' archive indexes of one replica may hold together (estimated from
   * their structures); over it, the least recently searched guild is evicted and answered
   * from Postgres full text until its next search has reloaded it. 0 = no limit.
   */
  @EnvInt({ min: 0 }) DIRIGENT_MEMORY_INDEX_BUDGET_MB = 0;
  /**
   * Partitions the guilds are divided into among memory replicas, each leased by one replica
   * at a time (the same number on every replica): a replica holds the archive indexes of its
   * partitions' guilds and answers their searches; 0 = not partitioned (every replica holds
   * every guild it is asked about).
   */
  @EnvInt({ min: 0, max: 256 }) DIRIGENT_MEMORY_PARTITIONS = 0;
  /**
   * Guilds pinned to a partition, `guildId=k,guildId=k` (the same on every replica): no other
   * guild hashes to a pinned partition, so a big guild can have a replica to itself.
   */
  @Matches(/^(\s*\d+\s*=\s*\d+\s*(,\s*\d+\s*=\s*\d+\s*)*)?$/, {
    message: '$property must be guildId=partition pairs separated by commas',
  })
  DIRIGENT_MEMORY_PINNED_GUILDS = '';
  /** This replica's name in the guild partition leases; unset = a new random id per process. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: '$property must match [A-Za-z0-9_-]{1,64}' })
  DIRIGENT_MEMORY_REPLICA_ID?: string;
  /** A guild partition lease not renewed this long expires and another replica takes it. */
  @EnvInt({ min: 600, max: 60000 }) DIRIGENT_MEMORY_LEASE_MS = 2000;
  /**
   * What this replica does (docs/design.md, "Queries while the guild talks"): `all` (one
   * process does everything), `queries` (answers searches, context reads and the other
   * requests from its archive indexes, which follow the table; consumes nothing) or `jobs`
   * (the ingest, moment batches, epoch closes, consolidations and redactions; holds no
   * archive index and answers no request). A deployment runs `queries` and `jobs` replicas
   * side by side, so that no query waits behind the background work's event loop.
   */
  @IsIn([...MEMORY_ROLES], { message: '$property must be all, queries or jobs' })
  DIRIGENT_MEMORY_ROLE: MemoryRole = 'all';
}

/** Whether a replica of `role` answers requests (and holds archive indexes). */
export const answersQueries = (role: MemoryRole) => role !== 'jobs';
/** Whether a replica of `role` consumes the streams and runs the background jobs. */
export const runsJobs = (role: MemoryRole) => role !== 'queries';
