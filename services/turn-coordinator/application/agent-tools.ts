import { DomainError, ErrorCodes } from '@dirigent/contracts';
import type { IdentityEntry } from '@dirigent/turn-domain';
import type { Identities } from './identities';

/** The registered agent a tool call is made on behalf of; `FORBIDDEN` for anyone else. */
export async function requireAgent(
  identities: Identities,
  callerAgentId: string,
): Promise<IdentityEntry> {
  const entry = await identities.byAgentId(callerAgentId);
  if (!entry) {
    throw new DomainError(ErrorCodes.FORBIDDEN, `${callerAgentId} is not a registered agent`);
  }
  return entry;
}
