import { randomUUID } from 'node:crypto';
import {
  Aggregates,
  Durables,
  Streams,
  Subjects,
  subject,
  type ProposalView,
} from '@dirigent/contracts';
import type { FakeGuild, FakeUser } from '@dirigent/discord-fake';
import { EventStore } from '@dirigent/event-store';
import { knex } from '@mikro-orm/postgresql';
import {
  snowflake,
  spawnService,
  testDatabaseUrl,
  testNatsUrl,
  waitFor,
  type SpawnedService,
} from '@dirigent/testing';
import type { ProposalEvent } from '@dirigent/router-domain';
import { readStream, startHarness, type Harness } from '../../../discord-ingest/test/harness';
import { grantManageGuild } from './manage-guild';

const MOD = 'dit-mod';
const LONG = 60_000;

/**
 * The steward through NATS and the local Discord: the real ingest (discord.js) in this
 * process, the router as a child process (built `dist/`) so that it can be SIGKILLed.
 * Proposals are appended to the event store as the skill system's `ProposalService` does
 * (the aggregate's own event), so each case controls its proposal's expiry.
 */
describe('steward: mod channel and proposals', () => {
  let h: Harness;
  let router: SpawnedService | undefined;
  let store: EventStore;
  let manager: FakeUser;
  let other: FakeGuild;
  let otherManager: FakeUser;

  const startRouter = async () => {
    router = await spawnService('dist/services/router/main.js', 'ROUTER_PORT', {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
      DIRIGENT_ROUTER_QUERY_TIMEOUT_MS: '5000',
    });
  };
  const killRouter = async () => {
    await router?.kill('SIGKILL');
    router = undefined;
  };
  const request = async <T = any>(subj: string, data: unknown) =>
    h.nats.request<T>(subj, data, 15_000);
  const modChannels = (guildId: string) =>
    [...h.discord.channels.values()].filter((c) => c.guildId === guildId && c.name === MOD);
  const list = async (guildId: string, status?: string): Promise<ProposalView[]> => {
    const r = await request<{ proposals: ProposalView[] }>(Subjects.steward.proposalsList, {
      guildId,
      ...(status ? { status } : {}),
    });
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.data.proposals;
  };
  const proposal = async (guildId: string, id: string) =>
    (await list(guildId)).find((p) => p.proposalId === id);
  /** The first pending proposal of `tool` in a channel, once a reactor job has made one. */
  const pendingProposal = (channelId: string, tool: string, what: string) =>
    waitFor(
      async () =>
        (await list(h.guild.id, 'pending')).find(
          (p) => p.channelId === channelId && p.tool === tool,
        ),
      LONG,
      200,
      what,
    );
  const status = (guildId: string, id: string, s: string) =>
    waitFor(
      async () => {
        const p = await proposal(guildId, id);
        return p?.status === s ? p : undefined;
      },
      LONG,
      100,
      `proposal ${id} ${s}`,
    );
  /** Every delivery of the router's Discord consumer handled (acknowledged). */
  const routerIdle = () =>
    waitFor(
      async () => {
        const info = await h.nats.client.jsm.consumers.info(
          Streams.discordEvents,
          Durables.routerDiscordEvents,
        );
        const last = (await h.nats.client.jsm.streams.info(Streams.discordEvents)).state.last_seq;
        return (
          info.num_pending === 0 && info.num_ack_pending === 0 && info.ack_floor.stream_seq >= last
        );
      },
      LONG,
      100,
      'the router to handle every Discord event',
    );
  /** Restarting the ingest publishes `guild.joined` for each of its guilds. */
  const restartIngest = async () => {
    await h.stopApp();
    await h.startApp();
  };

  /** What `ProposalService.propose` appends: the proposal, pending until `expiresAt`. */
  const propose = async (
    guildId: string,
    tool: string,
    args: Record<string, unknown>,
    ttlMs = 3_600_000,
  ) => {
    const proposalId = randomUUID();
    const now = Date.now();
    const requested: ProposalEvent = {
      type: 'ProposalRequested',
      data: {
        proposalId,
        guildId,
        channelId: snowflake(),
        skillId: tool,
        tool,
        args,
        reason: 'the room asked for it',
        requestedBy: { agentId: 'dit' },
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + ttlMs).toISOString(),
      },
    };
    await store.append(subject.aggregate(Aggregates.proposal, proposalId), [requested], 0);
    return proposalId;
  };
  /** The proposal's post in the mod channel, once the bot has added ✅ and ❌ to it. */
  const posted = (guildId: string, proposalId: string) =>
    waitFor(
      () => {
        const [mod] = modChannels(guildId);
        const m =
          mod &&
          h.discord.channelMessages(mod.id).find((x) => x.content.includes(`\`${proposalId}\``));
        const reacted = (e: string) =>
          m?.reactions.some((r) => r.emoji === e && r.userIds.includes(h.discord.bot.id));
        return m && reacted('✅') && reacted('❌') ? m : undefined;
      },
      LONG,
      100,
      `the post of ${proposalId}`,
    );
  const react = (channelId: string, messageId: string, userId: string, emoji: string) =>
    h.discord.react({ channelId, messageId, userId, emoji });
  const events = async (guildId: string, proposalId: string) =>
    (
      await readStream<ProposalView>(
        h.nats,
        Streams.stewardEvents,
        subject.stewardProposal(guildId),
      )
    )
      .map((e) => e.data)
      .filter((e) => e.proposalId === proposalId);

  beforeAll(async () => {
    h = await startHarness();
    store = new EventStore(h.nats);
    manager = h.discord.createUser({ id: snowflake(), username: 'manager' });
    h.discord.addMember(h.guild.id, manager.id);
    other = h.discord.createGuild({ id: snowflake(), name: 'other', ownerId: snowflake() });
    otherManager = h.discord.createUser({ id: snowflake(), username: 'other-manager' });
    h.discord.addMember(other.id, otherManager.id);
    grantManageGuild(h.discord, h.guild.id, manager.id);
    grantManageGuild(h.discord, other.id, otherManager.id);
    await startRouter();
    await restartIngest();
  }, 120_000);

  afterAll(async () => {
    await killRouter();
    await h?.stop();
  });

  it('creates one mod channel per guild, visible to the bot and ManageGuild members only', async () => {
    const [mod] = await waitFor(
      () => (modChannels(h.guild.id).length ? modChannels(h.guild.id) : undefined),
      LONG,
      100,
      'the mod channel',
    );
    expect(h.discord.canView(mod.id, h.discord.bot.id)).toBe(true);
    expect(h.discord.canView(mod.id, manager.id)).toBe(true);
    expect(h.discord.canView(mod.id, h.bob.id)).toBe(false);
    expect(h.discord.canView(mod.id, h.alice.id)).toBe(false);
    await waitFor(() => modChannels(other.id).length === 1, LONG, 100, "the other guild's");
  });

  it('keeps that one mod channel across two restarts of the router and the ingest', async () => {
    const [first] = modChannels(h.guild.id);
    for (let i = 0; i < 2; i++) {
      await killRouter();
      await startRouter();
      await restartIngest();
      await routerIdle();
    }
    expect(modChannels(h.guild.id).map((c) => c.id)).toEqual([first.id]);
    expect(modChannels(other.id)).toHaveLength(1);
  });

  it('posts a proposal naming its action; a ManageGuild ✅ approves and it runs', async () => {
    const name = `lore-${Date.now()}`;
    const id = await propose(h.guild.id, 'create_channel', { name });
    const post = await posted(h.guild.id, id);
    expect(post.authorId).toBe(h.discord.bot.id);
    expect(post.content).toContain('create_channel');
    expect(post.content).toContain(name);
    react(post.channelId, post.id, manager.id, '✅');
    const done = await status(h.guild.id, id, 'executed');
    expect(done.decidedBy).toBe(manager.id);
    const made = [...h.discord.channels.values()].filter((c) => c.name === name);
    expect(made).toHaveLength(1);
    expect(done.result).toMatchObject({ channelId: made[0].id });
    const seen = (await events(h.guild.id, id)).map((e) => e.status);
    expect(seen[0]).toBe('pending');
    expect(seen).toContain('approved');
    expect(seen[seen.length - 1]).toBe('executed');
  });

  it('ignores a ✅ by a member without ManageGuild and other emoji; a ❌ rejects', async () => {
    const name = `nope-${Date.now()}`;
    const id = await propose(h.guild.id, 'create_channel', { name });
    const post = await posted(h.guild.id, id);
    react(post.channelId, post.id, h.bob.id, '✅');
    react(post.channelId, post.id, h.alice.id, '✅');
    react(post.channelId, post.id, manager.id, '👍');
    await routerIdle();
    expect((await proposal(h.guild.id, id))?.status).toBe('pending');
    react(post.channelId, post.id, manager.id, '❌');
    const rejected = await status(h.guild.id, id, 'rejected');
    expect(rejected.decidedBy).toBe(manager.id);
    react(post.channelId, post.id, manager.id, '✅');
    await routerIdle();
    expect((await proposal(h.guild.id, id))?.status).toBe('rejected');
    expect([...h.discord.channels.values()].some((c) => c.name === name)).toBe(false);
    expect((await events(h.guild.id, id)).map((e) => e.status)).not.toContain('approved');
  });

  it('expires a pending proposal by its durable timer, across a router restart', async () => {
    const id = await propose(h.guild.id, 'create_channel', { name: 'late' }, 8_000);
    await posted(h.guild.id, id);
    await killRouter();
    await startRouter();
    const expired = await status(h.guild.id, id, 'expired');
    expect(expired.decidedBy).toBeUndefined();
    const post = await posted(h.guild.id, id);
    react(post.channelId, post.id, manager.id, '✅');
    await routerIdle();
    expect((await proposal(h.guild.id, id))?.status).toBe('expired');
  });

  it('executes an approved proposal once across a SIGKILL of the router', async () => {
    const name = `once-${Date.now()}`;
    const id = await propose(h.guild.id, 'create_channel', { name });
    const post = await posted(h.guild.id, id);
    // Approved while the router is down, and killed again as soon as the approval is stored.
    await killRouter();
    react(post.channelId, post.id, manager.id, '✅');
    await startRouter();
    await waitFor(
      async () => (await events(h.guild.id, id)).some((e) => e.status === 'approved'),
      LONG,
      20,
      'the approval',
    );
    await killRouter();
    await startRouter();
    await status(h.guild.id, id, 'executed');
    expect([...h.discord.channels.values()].filter((c) => c.name === name)).toHaveLength(1);
    await waitFor(async () => {
      const s = (await events(h.guild.id, id)).map((e) => e.status);
      return s[s.length - 1] === 'executed';
    });
    const statuses = (await events(h.guild.id, id)).map((e) => e.status);
    expect(statuses.filter((s) => s === 'executed')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'approved')).toHaveLength(1);
  });

  it('runs an approved archive_channel once across a SIGKILL mid-execution, beside a namesake', async () => {
    const name = `canon-${Date.now()}`;
    const namesake = h.discord.createChannel(h.guild.id, { name });
    const named = () => [...h.discord.channels.values()].filter((c) => c.name === name);
    const items = ['we ship on fridays', 'tabs, not spaces'];
    const id = await propose(h.guild.id, 'archive_channel', { name, items });
    const post = await posted(h.guild.id, id);
    // The execution stalls after the channel is made: its read-only overwrite is rate limited.
    h.discord.failNext({
      method: 'PUT',
      path: /^\/channels\/\d+\/permissions\/\d+$/,
      status: 429,
      retryAfter: 4,
    });
    react(post.channelId, post.id, manager.id, '✅');
    await waitFor(() => named().length === 2, LONG, 20, 'the archive channel');
    await killRouter();
    await startRouter();
    await status(h.guild.id, id, 'executed');
    const archives = named().filter((c) => c.id !== namesake.id);
    expect(archives).toHaveLength(1);
    const texts = () => h.discord.channelMessages(archives[0].id).map((m) => m.content);
    await waitFor(() => texts().length >= items.length, LONG, 50, 'the archived items');
    await routerIdle();
    expect(texts()).toEqual(items);
    expect(h.discord.channelMessages(namesake.id)).toEqual([]);
    const statuses = (await events(h.guild.id, id)).map((e) => e.status);
    expect(statuses.filter((s) => s === 'executed')).toHaveLength(1);
  });

  it('runs an approved restructure of 4 steps once across a SIGKILL mid-way', async () => {
    const t = Date.now();
    const memes = h.discord.createChannel(h.guild.id, { name: `memes-${t}` });
    const old = h.discord.createChannel(h.guild.id, { name: `old-${t}` });
    const steps = [
      `create #garden-${t}`,
      `rename #memes-${t} to fun-${t}`,
      `archive #old-${t}`,
      `create role gardeners-${t}`,
    ];
    const id = await propose(h.guild.id, 'propose_restructure', { summary: 'tidy up', steps });
    const post = await posted(h.guild.id, id);
    const named = (name: string) =>
      [...h.discord.channels.values()].filter((c) => c.guildId === h.guild.id && c.name === name);
    // Step 3 stalls on its read-only overwrite (rate limited); the router dies there.
    h.discord.failNext({
      method: 'PUT',
      path: /^\/channels\/\d+\/permissions\/\d+$/,
      status: 429,
      retryAfter: 4,
    });
    react(post.channelId, post.id, manager.id, '✅');
    await waitFor(() => h.discord.channel(memes.id).name === `fun-${t}`, LONG, 20, 'step 2');
    await killRouter();
    expect(named(`garden-${t}`)).toHaveLength(1);
    await startRouter();
    const done = await status(h.guild.id, id, 'executed');
    expect(done.result).toMatchObject({ steps: 4 });
    expect(named(`garden-${t}`)).toHaveLength(1);
    expect(named(`fun-${t}`)).toEqual([expect.objectContaining({ id: memes.id })]);
    expect(named(`memes-${t}`)).toHaveLength(0);
    expect(named(`archived-old-${t}`)).toEqual([expect.objectContaining({ id: old.id })]);
    expect(h.discord.channel(old.id).overwrites).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: h.guild.id, type: 0 })]),
    );
    const roles = [...h.discord.guild(h.guild.id).roles.values()];
    expect(roles.filter((r) => r.name === `gardeners-${t}`)).toHaveLength(1);
    // One result per step in the mod channel, in order.
    await routerIdle();
    const said = h.discord
      .channelMessages(post.channelId)
      .map((m) => m.content)
      .filter((c) => c.startsWith('Step '));
    const mine = said.filter((c) => steps.some((x) => c.includes(`(${x})`)));
    expect(mine.map((c) => c.slice(0, 8))).toEqual([
      'Step 1/4',
      'Step 2/4',
      'Step 3/4',
      'Step 4/4',
    ]);
    expect(mine.every((c) => c.includes('done'))).toBe(true);
    const statuses = (await events(h.guild.id, id)).map((e) => e.status);
    expect(statuses.filter((x) => x === 'executed')).toHaveLength(1);
  });

  it('stops a restructure at a failed step and says which', async () => {
    const t = Date.now();
    const garden = h.discord.createChannel(h.guild.id, { name: `plots-${t}` });
    const steps = [
      `move #plots-${t} to Projects ${t}`,
      `archive #nowhere-${t}`,
      `create #never-${t}`,
    ];
    const id = await propose(h.guild.id, 'propose_restructure', { summary: 'tidy', steps });
    const post = await posted(h.guild.id, id);
    react(post.channelId, post.id, manager.id, '✅');
    const failed = await status(h.guild.id, id, 'failed');
    expect(failed.error).toContain(`Step 2/3 (archive #nowhere-${t})`);
    const parent = h.discord.channel(garden.id).parentId;
    expect(parent && h.discord.channel(parent)).toMatchObject({ type: 4, name: `Projects ${t}` });
    expect([...h.discord.channels.values()].some((c) => c.name === `never-${t}`)).toBe(false);
    await waitFor(
      () =>
        h.discord
          .channelMessages(post.channelId)
          .some((m) => m.content.startsWith(`Step 2/3 (archive #nowhere-${t}) failed`)),
      LONG,
      50,
      'the failed step said',
    );
  });

  it('keeps guilds apart: lists, posts and deciders are per guild', async () => {
    const mine = await propose(h.guild.id, 'create_channel', { name: `g1-${Date.now()}` });
    const theirs = await propose(other.id, 'create_channel', { name: `g2-${Date.now()}` });
    const p1 = await posted(h.guild.id, mine);
    const p2 = await posted(other.id, theirs);
    expect(p1.channelId).toBe(modChannels(h.guild.id)[0].id);
    expect(p2.channelId).toBe(modChannels(other.id)[0].id);
    expect((await list(other.id)).map((p) => p.proposalId)).not.toContain(mine);
    expect((await list(h.guild.id)).map((p) => p.proposalId)).not.toContain(theirs);
    // The other guild's manager has no say here, by reaction or through the admin subject.
    react(p1.channelId, p1.id, otherManager.id, '✅');
    await routerIdle();
    expect((await proposal(h.guild.id, mine))?.status).toBe('pending');
    const refused = await request(Subjects.admin.stewardDecide, {
      proposalId: mine,
      approve: true,
      actorUserId: otherManager.id,
    });
    expect(refused).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    const decided = await request<ProposalView>(Subjects.admin.stewardDecide, {
      proposalId: theirs,
      approve: false,
      actorUserId: otherManager.id,
    });
    expect(decided).toMatchObject({ ok: true, data: { status: 'rejected' } });
    expect((await list(h.guild.id, 'pending')).map((p) => p.proposalId)).toContain(mine);
  });

  it('proposes a thread when a busy channel splits into topics (a reactor job)', async () => {
    const channel = h.discord.createChannel(h.guild.id, { id: snowflake(), name: 'busy' });
    const raid = [
      'raid tonight?',
      'raid boss drops swords',
      'healers for the raid',
      'raid at nine',
    ];
    const ramen = [
      'ramen recipe anyone',
      'ramen broth takes hours',
      'miso in the broth',
      'ramen eggs',
    ];
    const talk = raid.flatMap((r, i) => [r, ramen[i], `${r} again`]);
    for (const [i, content] of talk.entries()) {
      const author = [h.alice, h.bob, manager][i % 3];
      h.discord.postMessage({ channelId: channel.id, authorId: author.id, content });
    }
    const proposed = await pendingProposal(channel.id, 'create_thread', 'a thread proposal');
    expect(proposed.args).toMatchObject({ channelId: channel.id, name: 'ramen' });
    expect(proposed.reason).toContain('topics');
    await posted(h.guild.id, proposed.proposalId);
    // The same split is proposed once, however many messages re-evaluate it.
    h.discord.postMessage({ channelId: channel.id, authorId: h.bob.id, content: 'raid loot?' });
    await routerIdle();
    const threads = (await list(h.guild.id)).filter(
      (p) => p.channelId === channel.id && p.tool === 'create_thread',
    );
    expect(threads).toHaveLength(1);
  });

  it('proposes pinning a decision the room agreed to (a reactor job)', async () => {
    const channel = h.discord.createChannel(h.guild.id, { id: snowflake(), name: 'plans' });
    const say = (authorId: string, content: string) =>
      h.discord.postMessage({ channelId: channel.id, authorId, content });
    say(h.alice.id, 'so, Friday or Saturday for the meetup?');
    const decision = say(manager.id, "we decided: let's go with Friday");
    say(h.bob.id, 'agreed');
    say(h.alice.id, '👍 Friday it is');
    const proposed = await pendingProposal(channel.id, 'pin_moment', 'a pin proposal');
    expect(proposed.args).toEqual({ channelId: channel.id, messageId: decision.id });
    expect(proposed.reason).toContain('Friday');
    await posted(h.guild.id, proposed.proposalId);
  });

  it('sees a decision the room agreed to while the router was down (the durable stream)', async () => {
    const channel = h.discord.createChannel(h.guild.id, { id: snowflake(), name: 'plans-2' });
    const say = (authorId: string, content: string) =>
      h.discord.postMessage({ channelId: channel.id, authorId, content });
    const asked = say(h.alice.id, 'so, which night for the board games?');
    const decision = say(manager.id, "we decided: let's go with Thursday");
    // Seen, acknowledged and settled in the router's inbox before the kill (so not resumed
    // from it at start); the agreement comes while the router is down.
    const db = knex({ client: 'pg', connection: testDatabaseUrl() });
    try {
      await waitFor(
        async () => {
          const rows = await db('router_inbound')
            .whereIn('message_id', [asked.id, decision.id])
            .whereNotNull('settled_at');
          return rows.length === 2;
        },
        LONG,
        100,
        'the two messages settled',
      );
    } finally {
      await db.destroy();
    }
    await killRouter();
    say(h.bob.id, 'agreed');
    say(h.alice.id, '👍 Thursday it is');
    await startRouter();
    const proposed = await pendingProposal(
      channel.id,
      'pin_moment',
      'a pin proposal after the restart',
    );
    expect(proposed.args).toEqual({ channelId: channel.id, messageId: decision.id });
  });

  it('answers bad input with a code, never a crash', async () => {
    const bad = async (subj: string, data: unknown, field?: string) => {
      const r = await request(subj, data);
      expect(r.ok).toBe(false);
      if (!r.ok && field) {
        expect(r.error.code).toBe('BAD_REQUEST');
        expect(JSON.stringify(r.error)).toContain(field);
      }
      return r;
    };
    await bad(Subjects.steward.proposalsList, { guildId: 'x' }, 'guildId');
    await bad(Subjects.steward.proposalsList, { guildId: h.guild.id, status: 'maybe' }, 'status');
    await bad(
      Subjects.admin.stewardDecide,
      { proposalId: 'a.b', approve: true, actorUserId: '1' },
      'proposalId',
    );
    await bad(
      Subjects.admin.stewardDecide,
      { proposalId: 'p', approve: 'yes', actorUserId: '1' },
      'approve',
    );
    const missing = await bad(Subjects.admin.stewardDecide, {
      proposalId: randomUUID(),
      approve: true,
      actorUserId: manager.id,
    });
    expect(missing).toMatchObject({ error: { code: 'NOT_FOUND' } });
    // A proposal whose action cannot run (a tool with no action): failed, with the error.
    const id = await propose(h.guild.id, 'no_such_tool', {});
    await posted(h.guild.id, id);
    const ok = await request<ProposalView>(Subjects.admin.stewardDecide, {
      proposalId: id,
      approve: true,
      actorUserId: manager.id,
    });
    expect(ok).toMatchObject({ ok: true, data: { status: 'approved' } });
    const failed = await status(h.guild.id, id, 'failed');
    expect(failed.error).toContain('no_such_tool');
    expect(router!.child.exitCode).toBeNull();
  });
});
