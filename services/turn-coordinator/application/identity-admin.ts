import { Inject, Injectable } from '@nestjs/common';
import type {
  IdentityListRequest,
  IdentityRemoveRequest,
  IdentityRescanRequest,
  IdentityUpsertRequest,
  IdentityEntry as WireIdentity,
} from '@dirigent/contracts';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { TurnCoordinatorConfig } from '../config';
import { Identities, toWire } from './identities';

/** The identity registry's admin surface: upsert, remove, list, re-import. */
@Injectable()
export class IdentityAdmin {
  constructor(
    private readonly identities: Identities,
    @Inject(SERVICE_CONFIG) private readonly config: TurnCoordinatorConfig,
  ) {}

  async upsert(r: IdentityUpsertRequest): Promise<WireIdentity> {
    const state = await this.identities.execute({ type: 'UpsertIdentity', data: r });
    return toWire(state.entries.find((e) => e.discordUserId === r.discordUserId)!);
  }

  async remove(r: IdentityRemoveRequest): Promise<{ removed: WireIdentity | null }> {
    const entry = r.discordUserId
      ? await this.identities.byDiscordUserId(r.discordUserId)
      : await this.identities.byAgentId(r.agentId ?? '');
    await this.identities.execute({ type: 'RemoveIdentity', data: r });
    return { removed: entry ? toWire(entry) : null };
  }

  async list(r: IdentityListRequest): Promise<{ entries: WireIdentity[] }> {
    return {
      entries: (await this.identities.freshState()).entries
        .filter((e) => !r.discordUserId || e.discordUserId === r.discordUserId)
        .map(toWire),
    };
  }

  async rescan(r: IdentityRescanRequest): Promise<{ imported: number }> {
    return {
      imported: await this.identities.importFiles({
        identityFile: r.source === 'padded-cell' ? undefined : this.config.DIRIGENT_IDENTITY_FILE,
        egoFile: r.source === 'file' ? undefined : this.config.DIRIGENT_EGO_FILE,
      }),
    };
  }
}
