import { type DynamicModule, Logger, Module, type Provider, type Type } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { StreamSpecs } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { Reactor } from '@dirigent/reactor';
import { SERVICE_CONFIG, type ServiceDefinition } from '@dirigent/service-kit';
import { DurableTimers } from '@dirigent/timers';
import { ArchiveIndex } from './adapters/archive-index';
import { ArrayVectorStore, EmbeddingRepository } from './adapters/postgres/embedding.repository';
import { MemoryDossierRow } from './adapters/postgres/dossier.entity';
import { MemoryEmbedding } from './adapters/postgres/embedding.entity';
import { memoryEntities } from './adapters/postgres/entities';
import { MemoryEpochRow } from './adapters/postgres/epoch.entity';
import { MemoryHighlightRow } from './adapters/postgres/highlight.entity';
import { MemoryLore } from './adapters/postgres/lore.entity';
import { MemoryMessage } from './adapters/postgres/message.entity';
import { DossierRepository } from './adapters/postgres/dossier.repository';
import { EpochRepository } from './adapters/postgres/epoch.repository';
import { EpochTimer } from './adapters/epoch-timer';
import { GatewayEmbedder, GatewaySummarizer, LocalEmbedder } from './adapters/gateway.client';
import { HighlightRepository } from './adapters/postgres/highlight.repository';
import { LoreRepository } from './adapters/postgres/lore.repository';
import { PostgresMemoryReader } from './adapters/memory-reader';
import { MessageRepository } from './adapters/postgres/message.repository';
import { PhraseStore } from './adapters/postgres/phrase.store';
import { QueryLane } from './adapters/postgres/query-lane';
import { ReadBatch } from './adapters/postgres/read-batch';
import { AudienceScopes, ChannelAudienceStore } from './adapters/postgres/channel-audience.store';
import { pgvectorAvailable, PgVectorStore } from './adapters/pgvector.store';
import { RedactionStore } from './adapters/postgres/redaction.store';
import { ClosingStore } from './adapters/postgres/closing.store';
import { AddHighlight } from './application/add-highlight';
import { AssembleContext } from './application/assemble-context';
import { CloseEpoch } from './application/close-epoch';
import { ConsolidateDossier } from './application/consolidate-dossier';
import { DeleteMessage } from './application/delete-message';
import { EraseFromMemory } from './application/erase';
import { EpochEvents } from './application/epoch-events';
import { EpochWriter } from './application/epoch-writer';
import { ExtractMoments } from './application/extract-moments';
import { ForgetUser } from './application/forget-user';
import { Indexer } from './application/indexer';
import { IngestMessage } from './application/ingest-message';
import { LayerReads } from './application/layer-reads';
import { LoreRedaction } from './application/lore-redaction';
import { GetDossier, ListEpochs } from './application/memory-queries';
import { MessageArchive } from './application/message-archive';
import { MessageCredit } from './application/message-credit';
import { MomentBatches } from './application/moment-batches';
import { PhraseLore } from './application/phrase-lore';
import { EMBEDDER, SUMMARIZER, VECTOR_STORE } from './application/ports';
import { RecordReaction } from './application/record-reaction';
import { RedactMemory } from './application/redact';
import { RedactionQueue } from './application/redaction-queue';
import { ReviseEpoch } from './application/revise-epoch';
import { RerankHits } from './application/rerank-hits';
import { SearchMemory } from './application/search-memory';
import { EpochSummarizer } from './application/summarize-epoch';
import { answersQueries, MemoryConfig, type MemoryRole, runsJobs } from './config';
import { DiscordEventHandlers } from './handlers/discord-events.handler';
import { EpochTimerHandlers } from './handlers/epoch-timer.handler';
import { MemoryQueryHandlers } from './handlers/queries.handler';
import { MomentHandlers } from './handlers/moments.handler';
import { RedactionHandlers } from './handlers/redaction.handler';
import { ForwardedSearch } from './partitions/forwarded-search';
import { GuildPartitions } from './partitions/guild-partitions';
import { MemoryLeases } from './partitions/memory-leases';
import { MemoryJobs } from './reactor-jobs';

export { MemoryConfig } from './config';

const repository = (
  provide: abstract new (...a: never[]) => unknown,
  entity: object,
): Provider => ({
  provide,
  inject: [EntityManager],
  useFactory: (em: EntityManager) => em.getRepository(entity as never),
});

/**
 * Guild-wide layered memory (docs/architecture.md, "Memory"): the
 * archive and live window, dossiers, highlights, lore and epochs, hybrid search and the
 * 17 context lenses.
 */
@Module({
  providers: [
    repository(MessageRepository, MemoryMessage),
    repository(DossierRepository, MemoryDossierRow),
    repository(HighlightRepository, MemoryHighlightRow),
    repository(LoreRepository, MemoryLore),
    repository(EpochRepository, MemoryEpochRow),
    // Bound to the root EntityManager at start, so that each call follows the current
    // request and transaction (a repository taken from a request's fork would not).
    repository(EmbeddingRepository, MemoryEmbedding),
    ArrayVectorStore,
    PgVectorStore,
    QueryLane,
    {
      provide: VECTOR_STORE,
      inject: [SERVICE_CONFIG, EntityManager, ArrayVectorStore, PgVectorStore],
      useFactory: async (
        config: MemoryConfig,
        em: EntityManager,
        array: ArrayVectorStore,
        pgv: PgVectorStore,
      ) => {
        const mode = config.DIRIGENT_MEMORY_VECTORS;
        const usePgv =
          mode === 'pgvector' || (mode === 'auto' && (await pgvectorAvailable(em.fork())));
        new Logger('memory').log(
          `vectors: ${usePgv ? 'pgvector (HNSW)' : 'real[] scored in process'}`,
        );
        if (!answersQueries(config.DIRIGENT_MEMORY_ROLE)) array.keepNone();
        else if (!usePgv) array.preloadOnStart();
        return usePgv ? pgv : array;
      },
    },
    {
      provide: EMBEDDER,
      inject: [SERVICE_CONFIG, Messaging],
      useFactory: (config: MemoryConfig, messaging: Messaging) =>
        config.DIRIGENT_MEMORY_EMBEDDER === 'local'
          ? new LocalEmbedder(config.DIRIGENT_MEMORY_EMBED_DIMENSIONS || 512)
          : new GatewayEmbedder(
              messaging,
              config.DIRIGENT_MEMORY_EMBED_DIMENSIONS,
              config.DIRIGENT_MEMORY_GATEWAY_TIMEOUT_MS,
            ),
    },
    {
      provide: SUMMARIZER,
      inject: [SERVICE_CONFIG, Messaging],
      useFactory: (config: MemoryConfig, messaging: Messaging) =>
        new GatewaySummarizer(messaging, config.DIRIGENT_MEMORY_GATEWAY_TIMEOUT_MS),
    },
    {
      provide: Reactor,
      inject: [Messaging],
      useFactory: async (m: Messaging) => {
        const log = new Logger('memory:reactor');
        return new Reactor({
          timers: await DurableTimers.open(m, 'memory'),
          log: (o) => (o.fired ? log.log(o, 'job fired') : log.debug?.(o, 'job not due')),
        });
      },
    },
    EpochTimer,
    RedactionStore,
    ClosingStore,
    PhraseStore,
    EpochSummarizer,
    EpochEvents,
    RedactionQueue,
    ReviseEpoch,
    LoreRedaction,
    RedactMemory,
    EraseFromMemory,
    ArchiveIndex,
    PhraseLore,
    MomentBatches,
    ExtractMoments,
    Indexer,
    LayerReads,
    SearchMemory,
    RerankHits,
    ReadBatch,
    AudienceScopes,
    ChannelAudienceStore,
    PostgresMemoryReader,
    MessageArchive,
    MessageCredit,
    IngestMessage,
    DeleteMessage,
    RecordReaction,
    ConsolidateDossier,
    EpochWriter,
    CloseEpoch,
    AssembleContext,
    GetDossier,
    ListEpochs,
    AddHighlight,
    ForgetUser,
    MemoryJobs,
    GuildPartitions,
    ForwardedSearch,
    MemoryLeases,
  ],
})
export class MemoryModule {
  /**
   * The module with the handlers of a replica's role (`DIRIGENT_MEMORY_ROLE`): a `queries`
   * replica subscribes to the requests only, a `jobs` replica to the streams only.
   */
  static forRole(role: MemoryRole): DynamicModule {
    return { module: MemoryModule, controllers: memoryHandlers(role) };
  }
}

/** The handlers (NATS subscriptions) of a replica of `role`. */
export function memoryHandlers(role: MemoryRole): Type[] {
  return [
    ...(runsJobs(role)
      ? [DiscordEventHandlers, EpochTimerHandlers, RedactionHandlers, MomentHandlers]
      : []),
    ...(answersQueries(role) ? [MemoryQueryHandlers] : []),
  ];
}

export const MemoryService: ServiceDefinition<MemoryConfig> = {
  name: 'memory',
  portEnv: 'MEMORY_PORT',
  defaultPort: 3004,
  config: MemoryConfig,
  streams: [
    StreamSpecs.discordEvents,
    StreamSpecs.timerFired,
    StreamSpecs.memoryEvents,
    StreamSpecs.routerEvents,
    StreamSpecs.deadLetter,
  ],
  entities: memoryEntities,
  module: (config) => MemoryModule.forRole(config.DIRIGENT_MEMORY_ROLE),
};
