import { Subjects, subject, ok } from '@dirigent/contracts';
import { startServiceApp } from '@dirigent/service-kit';
import { snowflake, waitFor } from '@dirigent/testing';
import { TurnCoordinatorService } from '../turn-coordinator.module';
import { coordinatorEnv, Harness, makeAgents, type Agent } from './harness';

describe('turn coordinator: learning its own bot user', () => {
  let h: Harness;
  let agents: Agent[];
  const human = snowflake();
  let asked = 0;

  beforeAll(async () => {
    h = await Harness.start({}, false);
    const sub = h.messaging.client.nc.subscribe(Subjects.discord.querySelf, {
      callback: (_e, m) => {
        asked++;
        m.respond(JSON.stringify(ok({ userId: h.fake.moderatorId })));
      },
    });
    h.onCleanup(async () => sub.unsubscribe());
    // No DIRIGENT_MODERATOR_USER_ID, and the moderator allow-listed as a bot: only knowing
    // itself keeps its own notices from waking the channel.
    const env: Record<string, string | undefined> = coordinatorEnv(h.fake.moderatorId, {
      DIRIGENT_WORKSPACE: h.workspace,
      DIRIGENT_BOT_ALLOWLIST: h.fake.moderatorId,
    });
    delete env.DIRIGENT_MODERATOR_USER_ID;
    h.app = (await startServiceApp(TurnCoordinatorService, env)).app;
    agents = makeAgents(2, 'self');
    await h.register(agents);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('asks the ingest at start; its own messages never wake a channel', async () => {
    await waitFor(() => asked > 0, 10_000, 25, 'query.self at start');
    const { channelId } = await h.create(subject.tool('create-chat-channel'), {
      callerAgentId: agents[0].agentId,
      guildId: h.guildId,
      name: 'self',
      participants: [agents[1].userId],
    });
    await waitFor(async () => (await h.channel(channelId)).dormant, 10_000);
    const own = await h.fake.post(
      h.guildId,
      channelId,
      h.fake.moderatorId,
      'This discussion is closed.',
    );
    // check-turn answers once the channel has processed that message.
    const check = await h.relay.checkTurn({
      guildId: h.guildId,
      channelId,
      agentId: agents[0].agentId,
      messageId: own,
    });
    expect(check.allowed).toBe(false);
    expect((await h.channel(channelId)).dormant).toBe(true);
    const grants = await h.grants(channelId);
    await h.fake.post(h.guildId, channelId, human, 'hello', false);
    await waitFor(() => grants.length === 1, 10_000);
    expect(grants[0].reason).toBe('wake');
  });
});
