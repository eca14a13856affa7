import { connect } from '@nats-io/transport-node';
import type { Msg } from '@nats-io/nats-core';
import { Streams, Subjects, subject } from '@dirigent/contracts';
import { RelayClient, RelayError, type GrantedEvent } from '@dirigent/relay-client';
import { freePort, snowflake, uid, waitFor } from '@dirigent/testing';
import { Harness, makeAgents, type Agent } from '../../turn-coordinator/test/harness';
import { leafServerConfig, masterAccountsConfig } from '../nats-config';
import { startNatsServer, type NatsServerProcess } from '../nats-server';
import { RelayAgent } from '../relay-agent';

/**
 * A master nats-server with a leafnode port and per-relay accounts, two relays (leaf-node
 * nats-servers) on loopback, the coordinator in-process against the master, and agents on
 * the master and on relay A taking turns in one channel.
 */
describe('relay instances through NATS leaf nodes', () => {
  const secrets = { a: uid('a-secret'), b: uid('b-secret') };
  let master: NatsServerProcess;
  let leafPort: number;
  const leaves: Record<'a' | 'b', { port: number; server?: NatsServerProcess }> = {
    a: { port: 0 },
    b: { port: 0 },
  };
  let h: Harness;
  let relayA: RelayClient;
  let relayB: RelayClient;
  const savedNatsUrl = process.env.NATS_URL;
  const human = snowflake();

  /**
   * A first start picks its port just before binding it, and picks again when another
   * process took it in between; a restart (`keepDir`) keeps the port its clients reconnect to.
   */
  const startLeaf = async (name: 'a' | 'b', keepDir?: string) => {
    const leaf = leaves[name];
    for (let attempt = 1; ; attempt++) {
      if (!keepDir) leaf.port = await freePort();
      const config = leafServerConfig({
        masterLeafUrl: `nats-leaf://relay-relay-${name}:${secrets[name]}@127.0.0.1:${leafPort}`,
        port: leaf.port,
      });
      leaf.server = startNatsServer(config, leaf.port, keepDir);
      try {
        await leaf.server.ready(30_000);
        return leaf.server;
      } catch (e) {
        const taken = /address already in use/.test(leaf.server.log());
        if (keepDir || !taken || attempt === 3) throw e;
        await leaf.server.stop('SIGKILL');
      }
    }
  };

  beforeAll(async () => {
    const masterPort = await freePort();
    leafPort = await freePort();
    master = startNatsServer(
      [
        `listen: "127.0.0.1:${masterPort}"`,
        'jetstream { store_dir: "{dir}/store" }',
        masterAccountsConfig({
          leafListen: `127.0.0.1:${leafPort}`,
          relays: [
            { instance: 'relay-a', password: secrets.a },
            { instance: 'relay-b', password: secrets.b },
          ],
          serviceUser: { user: 'dirigent', password: uid('svc') },
        }),
      ].join('\n'),
      masterPort,
    );
    await master.ready();
    process.env.NATS_URL = master.url;
    h = await Harness.start();
    await startLeaf('a');
    await startLeaf('b');
    relayA = await RelayClient.connect(leaves.a.server!.url, { name: 'relay-a-test' });
    relayB = await RelayClient.connect(leaves.b.server!.url, { name: 'relay-b-test' });
  });

  afterAll(async () => {
    await relayA?.close();
    await relayB?.close();
    await h?.close();
    await leaves.a.server?.stop('SIGKILL');
    await leaves.b.server?.stop('SIGKILL');
    await master?.stop();
    process.env.NATS_URL = savedNatsUrl;
  });

  /** A relay agent whose turn posts its reply to "Discord" (the fake ingest) first. */
  const relayAgent = (relay: RelayClient, a: Agent, quiet: () => boolean) =>
    new RelayAgent(relay, {
      agentId: a.agentId,
      discordUserId: a.userId,
      ackWaitMs: 5000,
      takeTurn: async (g: GrantedEvent) => {
        if (quiet()) return 'NO_REPLY';
        const text = `${a.agentId} on relay A, cycle ${g.cycle}`;
        await h.fake.post(g.guildId, g.channelId, a.userId, text, true);
        return text;
      },
    });

  it('agents on the master and on relay A take turns; a cut leaf link loses and doubles no grant', async () => {
    const [local] = makeAgents(1, 'local');
    const remote = makeAgents(2, 'remote');
    await h.register([local]);
    const runtimes = remote.map((a) => relayAgent(relayA, a, () => false));
    for (const r of runtimes) await r.start();
    h.onCleanup(async () => {
      for (const r of runtimes) {
        await r.stop();
        await h.relay.deleteDurable(r.durable);
      }
    });
    // Registered through relay A: bound to it.
    const listed = await h.ok<{ entries: { agentId: string; instance?: string }[] }>(
      Subjects.admin.identityList,
      {},
    );
    for (const a of remote) {
      expect(listed.entries.find((e) => e.agentId === a.agentId)?.instance).toBe('relay-a');
    }
    expect(listed.entries.find((e) => e.agentId === local.agentId)?.instance).toBeUndefined();

    const { channelId } = await h.create(subject.tool('create-chat-channel'), {
      callerAgentId: local.agentId,
      guildId: h.guildId,
      name: 'master-and-relay',
      participants: remote.map((a) => a.userId),
    });
    expect([...(await h.channel(channelId)).speakers].sort()).toEqual(
      [local, ...remote].map((a) => a.agentId).sort(),
    );
    const grants = await h.grants(channelId);
    await h.runAgents(channelId, [local], (a, g) => `${a.agentId} on the master, cycle ${g.cycle}`);

    // Relay A checks turns like a local agent.
    const check = await relayA.checkTurn({
      guildId: h.guildId,
      channelId,
      agentId: remote[0].agentId,
    });
    expect(check).toMatchObject({ allowed: false, dormant: true });

    const remoteIds = new Set(remote.map((a) => a.agentId));
    const completedByRelay = () => runtimes.flatMap((r) => r.completed.map((g) => g.turnId));

    // Wave 1: the link is up. Three cycles (the limit without a human), then dormant.
    await h.fake.post(h.guildId, channelId, human, 'hello master and relay', false);
    await waitFor(
      async () => grants.length >= 9 && (await h.channel(channelId)).dormant,
      60_000,
      50,
      'three cycles across master and relay',
    );
    const wave1 = grants.slice();
    expect(wave1).toHaveLength(9);
    expect(completedByRelay().sort()).toEqual(
      wave1
        .filter((g) => remoteIds.has(g.agentId))
        .map((g) => g.turnId)
        .sort(),
    );

    // Cut the link (the leaf server dies), wake the channel, let a grant go to relay A.
    const dir = leaves.a.server!.dir;
    await leaves.a.server!.stop('SIGKILL', true);
    await h.fake.post(h.guildId, channelId, human, 'are you still there, relay?', false);
    await waitFor(
      () => grants.slice(9).some((g) => remoteIds.has(g.agentId)),
      60_000,
      50,
      'a grant to a relay agent while the link is cut',
    );
    expect(completedByRelay()).toHaveLength(wave1.filter((g) => remoteIds.has(g.agentId)).length);

    // Restore the link: the grants held on the master reach the relay; the channel goes on.
    await startLeaf('a', dir);
    await waitFor(
      async () => grants.length >= 18 && (await h.channel(channelId)).dormant,
      90_000,
      50,
      'three more cycles after the link is restored',
    );
    expect(grants).toHaveLength(18);
    expect(new Set(grants.map((g) => g.turnId)).size).toBe(18);
    // Every relay grant was taken exactly once: none lost, none doubled.
    expect(completedByRelay().sort()).toEqual(
      grants
        .filter((g) => remoteIds.has(g.agentId))
        .map((g) => g.turnId)
        .sort(),
    );
  });

  it("refuses a leaf node without valid credentials (never the services' no_auth_user)", async () => {
    const port = await freePort();
    const leaf = startNatsServer(
      leafServerConfig({ masterLeafUrl: `nats-leaf://127.0.0.1:${leafPort}`, port }),
      port,
    );
    const nc = await waitFor(
      () => connect({ servers: leaf.url, reconnect: false }).catch(() => undefined),
      20_000,
    );
    try {
      await waitFor(
        () => /Leafnode connection closed: Authentication Failure/.test(master.log()),
        30_000,
      );
      const answer = await nc.request(Subjects.admin.identityList, '{}', { timeout: 5000 }).then(
        (m: Msg) => m.string(),
        (e: Error) => e.message,
      );
      expect(answer).toMatch(/no responders/);
    } finally {
      await nc.close();
      await leaf.stop('SIGKILL');
    }
  });

  it('binds each agent to the instance that registered it and refuses the others', async () => {
    const [local] = makeAgents(1, 'home');
    const [onA, onB] = makeAgents(2, 'bound');
    await h.register([local]);
    await relayA.tool('register', onA.agentId, { discordUserId: onA.userId });
    await relayB.tool('register', onB.agentId, { discordUserId: onB.userId });
    const { channelId } = await h.create(subject.tool('create-chat-channel'), {
      callerAgentId: local.agentId,
      guildId: h.guildId,
      name: 'bindings',
      participants: [onA.userId, onB.userId],
    });
    const code = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: unknown) => (e instanceof RelayError ? e.code : String(e)),
      );
    const complete = (relay: RelayClient, agentId: string) =>
      relay.completeTurn({ guildId: h.guildId, channelId, agentId, runId: uid('run'), text: 'x' });
    const createChat = (relay: RelayClient, agentId: string) =>
      relay.tool('create-chat-channel', agentId, { guildId: h.guildId, name: 'stolen' });

    // Relay A as relay B's agent, the master's agent, or an agent nobody registered.
    const unknown = uid('nobody').replace(/[^A-Za-z0-9_-]/g, '_');
    for (const agentId of [onB.agentId, local.agentId, unknown]) {
      expect(await code(complete(relayA, agentId))).toBe('FORBIDDEN');
      expect(await code(createChat(relayA, agentId))).toBe('FORBIDDEN');
    }
    // Registering as an agent bound elsewhere: refused, with a fresh Discord user or its own.
    expect(await code(relayA.tool('register', onB.agentId, { discordUserId: snowflake() }))).toBe(
      'FORBIDDEN',
    );
    expect(
      await code(relayA.tool('register', local.agentId, { discordUserId: local.userId })),
    ).toBe('FORBIDDEN');
    // The master cannot act as a relay's agent either.
    expect(
      await code(
        h.relay.tool('create-chat-channel', onA.agentId, { guildId: h.guildId, name: 'x' }),
      ),
    ).toBe('FORBIDDEN');
    expect(await code(h.relay.tool('register', onA.agentId, { discordUserId: onA.userId }))).toBe(
      'FORBIDDEN',
    );
    // Each relay as its own agent: accepted (re-registering itself is idempotent).
    expect(await code(complete(relayA, onA.agentId))).toBe('ok');
    expect(await code(complete(relayB, onB.agentId))).toBe('ok');
    expect(await code(relayA.tool('register', onA.agentId, { discordUserId: onA.userId }))).toBe(
      'ok',
    );

    // What the relay's account does not import is not there at all: another relay's stamped
    // subjects, the master's admin API, other streams.
    const nc = await connect({ servers: leaves.a.server!.url });
    try {
      const raw = (subj: string) =>
        nc
          .request(subj, JSON.stringify({ guildId: h.guildId, channelId, agentId: onB.agentId }), {
            timeout: 5000,
          })
          .then(
            (m: Msg) => m.string(),
            (e: Error) => (/no responders/i.test(e.message) ? 'no responders' : e.message),
          );
      expect(await raw(subject.relayed('relay-b', Subjects.turn.check))).toBe('no responders');
      expect(await raw(subject.relayed('relay-a', Subjects.turn.check))).toBe('no responders');
      expect(await raw(Subjects.admin.identityList)).toBe('no responders');
      // Only the grant stream's consumer API is imported: no other stream is visible.
      const info = await raw(`$JS.API.STREAM.INFO.${Streams.turnComplete}`);
      expect(info).toMatch(/no responders|"error"/);
      expect(info).not.toContain('"config"');
    } finally {
      await nc.close();
    }
  });
});
