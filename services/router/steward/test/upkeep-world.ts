import type { INestApplication } from '@nestjs/common';
import { Subjects, type MemoryEpoch, type ProposalView } from '@dirigent/contracts';
import { SettableClock, startServiceApp } from '@dirigent/service-kit';
import { snowflake, testDatabaseUrl, testNatsUrl, waitFor } from '@dirigent/testing';
import { startHarness, type Harness } from '../../../discord-ingest/test/harness';
import { RouterService } from '../../router.module';
import { grantManageGuild } from './manage-guild';

export const DAY = 86_400_000;
const LONG = 60_000;

/**
 * A router in process with the real ingest and the local Discord, over a generated guild
 * history: memory's epochs (`dirigent.memory.epochs.list`) answered at the wire from the
 * list a test writes, dated back from the start. The router's clock is a `SettableClock`, so
 * a re-ask period passes without sleeping.
 */
export interface UpkeepWorld {
  h: Harness;
  router: INestApplication;
  clock: SettableClock;
  /** The channel members talk in (where the surveys are armed). */
  general: { id: string };
  members: string[];
  channel(name: string): { id: string };
  /** A closed epoch of `channelId`, `daysAgo` days before the start, one hour long. */
  epoch(
    channelId: string,
    daysAgo: number,
    participants: string[],
    topics: string[],
    messageCount?: number,
  ): void;
  /**
   * A whole upkeep survey, run after this call: its three jobs each read the guild's epochs
   * once, in the guild's lane, so when the next survey begins (its first read) this one has
   * finished.
   */
  surveyed(): Promise<void>;
  proposals(tool: string): Promise<ProposalView[]>;
  decide(proposalId: string, approve: boolean): Promise<ProposalView>;
  stop(): Promise<void>;
}

export async function startUpkeepWorld(): Promise<UpkeepWorld> {
  const h = await startHarness();
  const clock = new SettableClock();
  const start = Date.now();
  const epochs: MemoryEpoch[] = [];
  let reads = 0;
  const general = h.discord.createChannel(h.guild.id, { name: 'general' });
  h.nats.client.nc.subscribe(Subjects.memory.epochsList, {
    callback: (_e, m) => {
      const q = m.json<{ guildId: string; channelId?: string }>();
      if (!q.channelId) reads++;
      const of = epochs
        .filter((x) => !q.channelId || x.channelId === q.channelId)
        .sort((x, y) => y.startAt.localeCompare(x.startAt));
      m.respond(JSON.stringify({ ok: true, data: { epochs: of } }));
    },
  });
  const { app: router } = await startServiceApp(
    RouterService,
    {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ROUTER_PORT: '0',
      DIRIGENT_ROUTER_QUERY_TIMEOUT_MS: '5000',
      DIRIGENT_UPKEEP_SURVEY_MS: '200',
    },
    { clock },
  );
  grantManageGuild(h.discord, h.guild.id, h.alice.id);

  /** Waits for the first read of a survey that begins after this call. */
  const nextSurvey = async () => {
    const begun = Math.ceil(reads / 3) * 3;
    h.discord.postMessage({ channelId: general.id, authorId: h.alice.id, content: 'hello all' });
    await waitFor(() => reads > begun, LONG, 20, 'an upkeep survey');
  };
  const list = async () => {
    const r = await h.nats.request<{ proposals: ProposalView[] }>(
      Subjects.steward.proposalsList,
      { guildId: h.guild.id },
      10_000,
    );
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.data.proposals;
  };

  return {
    h,
    router,
    clock,
    general,
    members: Array.from({ length: 8 }, () => snowflake()),
    channel: (name) => h.discord.createChannel(h.guild.id, { name }),
    epoch(channelId, daysAgo, participants, topics, messageCount = 20) {
      const at = start - daysAgo * DAY;
      epochs.push({
        id: snowflake(),
        channelId,
        startAt: new Date(at).toISOString(),
        endAt: new Date(at + 3_600_000).toISOString(),
        messageCount,
        participants,
        summary: `Talk of ${topics.join(', ') || 'nothing much'}.`,
        topics,
      });
    },
    async surveyed() {
      await nextSurvey();
      await nextSurvey();
    },
    proposals: async (tool) =>
      (await list())
        .filter((p) => p.tool === tool)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt)),
    async decide(proposalId, approve) {
      const r = await h.nats.request<ProposalView>(
        Subjects.admin.stewardDecide,
        { proposalId, approve, actorUserId: h.alice.id },
        10_000,
      );
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      return r.data;
    },
    async stop() {
      await router.close();
      await h.stop();
    },
  };
}

/**
 * Rejects the first proposal of `tool` and shows it is not asked again, neither at once nor
 * 29 days on, and is asked again (as `nextId`, the same arguments) once
 * `DIRIGENT_UPKEEP_REASK_DAYS` (30) have passed on the router's clock.
 */
export async function rejectedUntilReask(w: UpkeepWorld, tool: string, nextId: string) {
  const [first] = await w.proposals(tool);
  expect(await w.decide(first.proposalId, false)).toMatchObject({ status: 'rejected' });
  await w.surveyed();
  expect((await w.proposals(tool)).map((p) => p.status)).toEqual(['rejected']);

  w.clock.advance(29 * DAY);
  await w.surveyed();
  expect((await w.proposals(tool)).map((p) => p.status)).toEqual(['rejected']);

  w.clock.advance(1 * DAY + 60_000);
  await w.surveyed();
  const again = await w.proposals(tool);
  expect(again.map((p) => [p.proposalId, p.status])).toEqual([
    [first.proposalId, 'rejected'],
    [nextId, 'pending'],
  ]);
  expect(again[1].args).toEqual(first.args);
}
