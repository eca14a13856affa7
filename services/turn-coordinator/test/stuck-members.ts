import { subject } from '@dirigent/contracts';
import type { GrantedEvent } from '@dirigent/relay-client';
import { snowflake, waitFor } from '@dirigent/testing';
import { Harness, makeAgents, type Agent } from './harness';

/** More inputs than the coordinator handles at once (DIRIGENT_COORDINATOR_CONCURRENCY, 16). */
const STUCK_INPUTS = 40;

/**
 * A channel whose `channel-members` query is never answered (its guild gone from Discord)
 * next to a healthy channel on the same coordinator: the healthy channel's turns go on while
 * the stuck channel waits for its members, and the stuck channel's inputs all apply once the
 * query is answered. `partitions`: '0' for the single-replica durables, '1' for one partition
 * leased (both channels on it), as a replica of a partitioned coordinator serves it. One
 * coordinator per test file (a second app in the same file finds no ORM metadata).
 */
export function describeStuckMembers(label: string, partitions: string): void {
  describe(`turn coordinator: a channel whose members query goes unanswered (${label})`, () => {
    let h: Harness;
    const human = snowflake();
    let stuck: string | undefined;

    beforeAll(async () => {
      // The query never times out within the test: the stuck channel waits until released.
      h = await Harness.start({
        DIRIGENT_DISCORD_RPC_TIMEOUT_MS: '600000',
        DIRIGENT_COORDINATOR_PARTITIONS: partitions,
      });
    });

    afterAll(async () => {
      // A failed run leaves the coordinator waiting on the query: answer it so it can stop.
      if (stuck) h.fake.release(stuck);
      await h?.stopApp();
      await h?.close();
    });

    const chat = async (agents: Agent[], name: string): Promise<string> =>
      (
        await h.create(subject.tool('create-chat-channel'), {
          callerAgentId: agents[0].agentId,
          guildId: h.guildId,
          name,
          participants: agents.slice(1).map((a) => a.userId),
        })
      ).channelId;

    it('does not hold up another channel, and applies the stuck inputs once answered', async () => {
      const stuckAgents = makeAgents(3, 'stuck');
      const healthyAgents = makeAgents(2, 'healthy');
      await h.register([...stuckAgents, ...healthyAgents]);
      const stuckId = await chat(stuckAgents.slice(0, 2), 'stuck');
      stuck = stuckId;
      const healthy = await chat(healthyAgents, 'healthy');
      const stuckGrants = await h.grants(stuckId);
      const healthyGrants: GrantedEvent[] = await h.grants(healthy);
      let n = 0;
      await h.runAgents(healthy, healthyAgents, (a) => `Reply ${++n} from ${a.agentId}.`);
      await h.runAgents(stuckId, stuckAgents, () => 'NO_REPLY');

      // The stuck channel's guild is gone: its member queries go unanswered from now on, and
      // a third agent joined meanwhile (the answer, when it comes, tells).
      h.fake.hold(stuckId);
      h.fake.setMembers(stuckId, [
        { userId: h.fake.moderatorId, isBot: true },
        ...stuckAgents.map((a) => ({ userId: a.userId, isBot: true })),
      ]);
      for (let i = 0; i < STUCK_INPUTS; i++) {
        await h.fake.post(h.guildId, stuckId, human, `anyone? (${i})`, false);
      }
      await waitFor(() => h.fake.heldQueries(stuckId) >= 1, 30_000, 20, 'a stuck members query');

      // The healthy channel wakes and takes turns while the stuck query is still unanswered.
      await h.fake.post(h.guildId, healthy, human, 'hello', false);
      await waitFor(
        () => healthyGrants.length >= 3,
        60_000,
        50,
        'three grants in the healthy channel',
      );
      expect(stuckGrants).toHaveLength(0);
      expect(h.fake.heldQueries(stuckId)).toBeGreaterThanOrEqual(1);

      // Answered: the stuck channel wakes with the members it was told, nothing of it lost.
      h.fake.release(stuckId);
      await waitFor(() => stuckGrants.length >= 1, 60_000, 50, 'the stuck channel to wake');
      expect(stuckGrants[0].reason).toBe('wake');
      const view = await h.channel(stuckId);
      expect(view.members.map((m: { agentId: string }) => m.agentId).sort()).toEqual(
        stuckAgents.map((a) => a.agentId).sort(),
      );
    });
  });
}
