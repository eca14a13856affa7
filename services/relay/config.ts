import { AGENT_ID_PATTERN, AGENT_ID_RULE, NO_REPLY, SNOWFLAKE_PATTERN } from '@dirigent/contracts';

export interface RelayAgentSpec {
  agentId: string;
  discordUserId: string;
}

export interface RelayConfig {
  masterLeafUrl: string;
  credsFile?: string;
  port: number;
  agents: RelayAgentSpec[];
  reply: string;
}

/** A configuration mistake: one line naming what is wrong. */
export class RelayConfigError extends Error {}

/**
 * Reads the relay's environment: `DIRIGENT_MASTER_LEAF_URL` (required), `DIRIGENT_MASTER_CREDS`,
 * `DIRIGENT_RELAY_NATS_PORT` (4223), `DIRIGENT_RELAY_AGENTS` (`agentId:discordUserId,…`) and
 * `DIRIGENT_RELAY_AGENT_REPLY` (`NO_REPLY`).
 */
export function readRelayConfig(env: NodeJS.ProcessEnv): RelayConfig {
  const masterLeafUrl = env.DIRIGENT_MASTER_LEAF_URL?.trim();
  if (!masterLeafUrl) throw new RelayConfigError('DIRIGENT_MASTER_LEAF_URL is required');
  let url: URL;
  try {
    url = new URL(masterLeafUrl);
  } catch {
    throw new RelayConfigError('DIRIGENT_MASTER_LEAF_URL is not a URL');
  }
  if (!['nats-leaf:', 'nats:', 'tls:', 'ws:', 'wss:'].includes(url.protocol)) {
    throw new RelayConfigError(
      'DIRIGENT_MASTER_LEAF_URL must be nats-leaf://[user:password@]host:port (or tls://, ws://)',
    );
  }
  const credsFile = env.DIRIGENT_MASTER_CREDS?.trim() || undefined;
  if (!credsFile && !url.username) {
    throw new RelayConfigError(
      'the relay needs credentials: user:password in DIRIGENT_MASTER_LEAF_URL or DIRIGENT_MASTER_CREDS',
    );
  }
  const rawPort = env.DIRIGENT_RELAY_NATS_PORT?.trim() || '4223';
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port < 1 || port > 65535) {
    throw new RelayConfigError('DIRIGENT_RELAY_NATS_PORT must be a port number (1-65535)');
  }
  const agents: RelayAgentSpec[] = [];
  for (const item of (env.DIRIGENT_RELAY_AGENTS ?? '').split(',')) {
    if (item.trim() === '') continue;
    const [agentId = '', discordUserId = '', extra] = item.trim().split(':');
    if (extra !== undefined || !AGENT_ID_PATTERN.test(agentId)) {
      throw new RelayConfigError(
        `DIRIGENT_RELAY_AGENTS: "${item.trim()}" must be agentId:discordUserId, the id ${AGENT_ID_RULE}`,
      );
    }
    if (!SNOWFLAKE_PATTERN.test(discordUserId)) {
      throw new RelayConfigError(
        `DIRIGENT_RELAY_AGENTS: "${item.trim()}" needs the agent's Discord user id (a snowflake)`,
      );
    }
    agents.push({ agentId, discordUserId });
  }
  return {
    masterLeafUrl,
    credsFile,
    port,
    agents,
    reply: env.DIRIGENT_RELAY_AGENT_REPLY ?? NO_REPLY,
  };
}
