import { Injectable } from '@nestjs/common';
import type {
  MemoryDossier,
  MemoryDossierRequest,
  MemoryEpoch,
  MemoryEpochsRequest,
} from '@dirigent/contracts';
import { DossierRepository } from '../adapters/postgres/dossier.repository';
import { EpochRepository, epochView } from '../adapters/postgres/epoch.repository';
import { PostgresMemoryReader } from '../adapters/memory-reader';

/** `Subjects.memory.dossierGet`: an unknown user has an empty dossier, not an error. */
@Injectable()
export class GetDossier {
  constructor(
    private readonly dossiers: DossierRepository,
    private readonly reader: PostgresMemoryReader,
  ) {}

  async run(r: MemoryDossierRequest): Promise<MemoryDossier> {
    const row = await this.dossiers.get(r.guildId, r.userId);
    if (!row) return { userId: r.userId, body: '', signals: {}, messageCount: 0, lastSeenAt: null };
    const [item] = await this.reader.dossiers(r.guildId, [r.userId]);
    const facts = await this.dossiers.facts(r.guildId, [r.userId]);
    return {
      userId: r.userId,
      body: row.body || (facts.length ? item.text : ''),
      signals: {
        ...row.signals,
        facts: facts.map((f) => ({
          key: f.key,
          value: f.value,
          validFrom: new Date(f.validFrom).toISOString(),
          validUntil: f.validUntil === undefined ? null : new Date(f.validUntil).toISOString(),
        })),
      },
      messageCount: row.message_count,
      lastSeenAt: row.last_seen_at ? new Date(row.last_seen_at).toISOString() : null,
    };
  }
}

/** `Subjects.memory.epochsList`, newest first. */
@Injectable()
export class ListEpochs {
  constructor(private readonly epochs: EpochRepository) {}

  async run(r: MemoryEpochsRequest): Promise<{ epochs: MemoryEpoch[] }> {
    const rows = await this.epochs.list(r.guildId, r.channelId, r.limit ?? 20);
    return { epochs: rows.map(epochView) };
  }
}
