import { randomBytes } from 'node:crypto';
import type { FakeDiscord } from '@dirigent/discord-fake';
import type { DemoAgentSpec } from './demo-agent';

const FIXED = {
  guild: '1100000000000000001',
  chat: '1100000000000000002',
  human: '1100000000000000010',
  agents: ['1100000000000000011', '1100000000000000012', '1100000000000000013'],
  dit: '1100000000000000014',
  molt: '1100000000000000015',
};

const AGENT_NAMES = [
  ['ada', 'Ada'],
  ['basil', 'Basil'],
  ['clio', 'Clio'],
] as const;

export interface PlaygroundWorld {
  guildId: string;
  chatChannelId: string;
  humanId: string;
  agentSpecs: DemoAgentSpec[];
  /** Dirigent's own agent (the router's), with its own bot user so it is a speaker. */
  dit: DemoAgentSpec;
  /** The router's orchestrator agent: answers when mentioned, takes no turns. */
  molt: DemoAgentSpec;
}

/**
 * The playground's guild in a local Discord: a human (owner, Manage Channels), three demo
 * agents, Dirigent's own agents Dit and Molt (the orchestrator) and a chat channel. Fixed ids give the same world on every start, so identities
 * and channel history in a kept NATS/Postgres stay valid; `unique` makes fresh ones.
 */
export function seedWorld(discord: FakeDiscord, unique: boolean): PlaygroundWorld {
  const id = () => discord.ids.next();
  const suffix = unique ? `-${randomBytes(3).toString('hex')}` : '';
  const guildId = unique ? id() : FIXED.guild;
  const humanId = unique ? id() : FIXED.human;
  const agentSpecs = AGENT_NAMES.map(([agentId, name], i) => ({
    agentId: `${agentId}${suffix}`,
    name,
    userId: unique ? id() : FIXED.agents[i],
  }));
  const dit = { agentId: `dit${suffix}`, name: 'Dit', userId: unique ? id() : FIXED.dit };
  // Molt's id is its webhook's name (it has no identity: it is no speaker), hence the capital.
  const molt = { agentId: `Molt${suffix}`, name: 'Molt', userId: unique ? id() : FIXED.molt };
  discord.createUser({ id: humanId, username: 'you', globalName: 'You (human)' });
  for (const a of [...agentSpecs, dit, molt])
    discord.createUser({ id: a.userId, username: a.name, bot: true });
  discord.createGuild({ id: guildId, name: 'Demo guild', ownerId: humanId });
  discord.addMember(guildId, humanId, { manageChannels: true });
  for (const a of [...agentSpecs, dit, molt]) discord.addMember(guildId, a.userId);
  const chatChannelId = discord.createChannel(guildId, {
    id: unique ? id() : FIXED.chat,
    name: 'agents-chat',
    topic: 'Three demo agents, Dit, Molt and you',
  }).id;
  return { guildId, chatChannelId, humanId, agentSpecs, dit, molt };
}
