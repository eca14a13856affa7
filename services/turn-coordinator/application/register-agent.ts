import { Injectable } from '@nestjs/common';
import type { RegisterTool, IdentityEntry as WireIdentity } from '@dirigent/contracts';
import { Identities, toWire } from './identities';

/** The register tool: an agent binds its own id to a Discord user. */
@Injectable()
export class RegisterAgent {
  constructor(private readonly identities: Identities) {}

  async run(r: RegisterTool): Promise<WireIdentity> {
    const state = await this.identities.execute({
      type: 'RegisterIdentity',
      data: {
        callerAgentId: r.callerAgentId,
        discordUserId: r.discordUserId,
        agentName: r.agentName ?? null,
      },
    });
    return toWire(state.entries.find((e) => e.agentId === r.callerAgentId)!);
  }
}
