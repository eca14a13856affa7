import { Injectable } from '@nestjs/common';
import type { RegisterTool, IdentityEntry as WireIdentity } from '@dirigent/contracts';
import { Identities, toWire } from './identities';

/** The register tool: an agent binds its own id to a Discord user. */
@Injectable()
export class RegisterAgent {
  constructor(private readonly identities: Identities) {}

  /** `instance`: the relay the request came from (absent: the master); the agent is bound to it. */
  async run(r: RegisterTool, instance?: string): Promise<WireIdentity> {
    const state = await this.identities.execute({
      type: 'RegisterIdentity',
      data: {
        callerAgentId: r.callerAgentId,
        discordUserId: r.discordUserId,
        agentName: r.agentName ?? null,
        ...(instance ? { instance } : {}),
      },
    });
    return toWire(state.entries.find((e) => e.agentId === r.callerAgentId)!);
  }
}
