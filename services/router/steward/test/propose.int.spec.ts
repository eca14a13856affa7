import type { INestApplication } from '@nestjs/common';
import { DomainError, Subjects, type ProposalView } from '@dirigent/contracts';
import { startServiceApp } from '@dirigent/service-kit';
import { snowflake, testDatabaseUrl, testNatsUrl, waitFor } from '@dirigent/testing';
import { startHarness, type Harness } from '../../../discord-ingest/test/harness';
import { RouterService } from '../../router.module';
import { ProposalService } from '../application/proposals';

const MOD = 'steward-mod';
const TTL_MS = 2000;

/**
 * The port the skill system proposes through (`ProposalService.propose`), in a router
 * configured with its own mod channel name and a short `DIRIGENT_PROPOSAL_TTL_MS`; the
 * real ingest and the local Discord answer it.
 */
describe('steward: ProposalService with DIRIGENT_PROPOSAL_TTL_MS and the mod channel name', () => {
  let h: Harness;
  let router: INestApplication;
  let proposals: ProposalService;

  beforeAll(async () => {
    h = await startHarness();
    ({ app: router } = await startServiceApp(RouterService, {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ROUTER_PORT: '0',
      DIRIGENT_ROUTER_QUERY_TIMEOUT_MS: '5000',
      DIRIGENT_PROPOSAL_TTL_MS: String(TTL_MS),
      DIRIGENT_MOD_CHANNEL_NAME: MOD,
    }));
    proposals = router.get(ProposalService);
  }, 60_000);

  afterAll(async () => {
    await router?.close();
    await h?.stop();
  });

  const view = async (id: string) => {
    const r = await h.nats.request<{ proposals: ProposalView[] }>(
      Subjects.steward.proposalsList,
      { guildId: h.guild.id },
      10_000,
    );
    return r.ok ? r.data.proposals.find((p) => p.proposalId === id) : undefined;
  };

  it('posts in the configured mod channel and expires after the configured TTL', async () => {
    const call = {
      guildId: h.guild.id,
      channelId: snowflake(),
      skillId: 'create_channel',
      tool: 'create_channel',
      args: { name: 'short-lived' },
      reason: 'a test',
      requestedBy: { agentId: 'dit' },
    };
    const { proposalId } = await proposals.propose(call);
    const mods = () =>
      [...h.discord.channels.values()].filter((c) => c.guildId === h.guild.id && c.name === MOD);
    await waitFor(
      () =>
        mods().length === 1 &&
        h.discord.channelMessages(mods()[0].id).some((m) => m.content.includes(proposalId)),
      30_000,
      100,
      'the post in the mod channel',
    );
    const expired = await waitFor(
      async () => {
        const v = await view(proposalId);
        return v?.status === 'expired' ? v : undefined;
      },
      60_000,
      100,
      'the expiry',
    );
    expect(Date.parse(expired.expiresAt) - Date.parse(expired.createdAt)).toBe(TTL_MS);
    expect(mods()).toHaveLength(1);
  });

  it('proposes once per given id, and refuses a bad call naming the field', async () => {
    const call = {
      proposalId: `retry-${snowflake()}`,
      guildId: h.guild.id,
      channelId: snowflake(),
      skillId: 'create_channel',
      tool: 'create_channel',
      args: { name: 'twice' },
      reason: '',
      requestedBy: { userId: h.alice.id },
    };
    await proposals.propose(call);
    await proposals.propose(call);
    await waitFor(() => view(call.proposalId), 30_000, 100, 'the proposal');
    const all = await h.nats.request<{ proposals: ProposalView[] }>(
      Subjects.steward.proposalsList,
      { guildId: h.guild.id },
      10_000,
    );
    expect(
      all.ok && all.data.proposals.filter((p) => p.proposalId === call.proposalId),
    ).toHaveLength(1);
    const refused = await proposals.propose({ ...call, guildId: 'nope' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect(JSON.stringify((refused as DomainError).details)).toContain('guildId');
  });
});
