import { MemoryDossierRow } from './dossier.entity';
import { MemoryEmbedding } from './embedding.entity';
import { MemoryEpochRow } from './epoch.entity';
import { MemoryFact } from './fact.entity';
import { MemoryHighlightRow } from './highlight.entity';
import { MemoryLore } from './lore.entity';
import { MemoryMessage } from './message.entity';

/** The memory service's tables (Migration20261123120000_memory; `tsv` columns are Postgres's own). */
export const memoryEntities = [
  MemoryMessage,
  MemoryDossierRow,
  MemoryFact,
  MemoryHighlightRow,
  MemoryLore,
  MemoryEpochRow,
  MemoryEmbedding,
];
