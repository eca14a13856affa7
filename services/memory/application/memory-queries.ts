import { Injectable } from '@nestjs/common';
import type {
  MemoryDossier,
  MemoryDossierRequest,
  MemoryEpoch,
  MemoryEpochsRequest,
} from '@dirigent/contracts';
import { visibleWith } from '@dirigent/memory-domain';
import { AudienceScopes } from '../adapters/postgres/channel-audience.store';
import { DossierRepository } from '../adapters/postgres/dossier.repository';
import { EpochRepository, epochView } from '../adapters/postgres/epoch.repository';
import { PostgresMemoryReader } from '../adapters/memory-reader';

/**
 * `Subjects.memory.dossierGet`: an unknown user has an empty dossier, not an error. With
 * `forChannelId`, only what that channel's audience may see.
 */
@Injectable()
export class GetDossier {
  constructor(
    private readonly dossiers: DossierRepository,
    private readonly reader: PostgresMemoryReader,
    private readonly audiences: AudienceScopes,
  ) {}

  async run(r: MemoryDossierRequest): Promise<MemoryDossier> {
    const row = await this.dossiers.get(r.guildId, r.userId);
    if (!row) return { userId: r.userId, body: '', signals: {}, messageCount: 0, lastSeenAt: null };
    const hidden = r.forChannelId
      ? await this.audiences.hiddenFor(r.guildId, r.forChannelId)
      : new Set<string>();
    const [item] = await this.reader.dossiers(r.guildId, [r.userId], {
      hiddenChannelIds: hidden,
    });
    const facts = (await this.dossiers.facts(r.guildId, [r.userId])).filter((f) =>
      visibleWith(hidden, { channelId: f.channelId }),
    );
    // The body (and the model's signals read with it) only where all its sources may be.
    const bodyShown = visibleWith(hidden, {
      sourceChannelIds: (row.source_channel_ids as string[] | undefined) ?? [],
    });
    return {
      userId: r.userId,
      body: (bodyShown && row.body) || (facts.length ? item.text : ''),
      signals: {
        ...(bodyShown ? row.signals : {}),
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
