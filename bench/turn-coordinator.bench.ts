import { resolve } from 'node:path';
import {
  Aggregates,
  CheckTurnRequest,
  Durables,
  Streams,
  Subjects,
  subject,
  type CheckTurnResult,
} from '@dirigent/contracts';
import { NatsClient } from '@dirigent/messaging';
import { EventStore } from '@dirigent/event-store';
import { ProjectionCheckpoint } from '@dirigent/persistence';
import { startServiceApp } from '@dirigent/service-kit';
import { freePort, spawnNode, uid, waitFor } from '@dirigent/testing';
import { TurnCoordinatorService } from '../services/turn-coordinator/turn-coordinator.module';
import { COORDINATOR_NODE_FLAGS } from '../services/turn-coordinator/node-flags';
import { nestEcho, rawEcho } from './anchors';
import { openLoop, startCoordinatorWorld, type Running } from './coordinator-world';
import { echoReply } from './echo-server';
import { startProcess } from './llm-gateway/processes';
import { profilePhase } from './profile';
import { procCpuMs } from './soak-cost';
import { startStallProbe } from './stall-probe';
import { msSince, percentile, round, type BenchResult } from './stats';
import {
  cpuPerRequest,
  sideBySide,
  stalls,
  TARGETS,
  writeResults,
  type RoundCpu,
  type Target,
} from './turn-coordinator-report';

const CHANNELS = 1000;
const CHECK_SECONDS = 10;
const GRANT_SAMPLES = 300;
const GRANT_RATE = 100;
const SETTLE_MS = 30_000;

/**
 * The coordinator: the built service (dist/services/turn-coordinator/main.js) as a process of
 * its own, as it is deployed (with its node flags, node-flags.ts), ready when its `/healthz`
 * answers; `inProcess`, a Nest app in this process (for a CPU profile of client and server
 * together).
 */
async function startCoordinator(inProcess: boolean, env: Record<string, string>): Promise<Running> {
  if (inProcess) {
    const { app } = await startServiceApp(TurnCoordinatorService, {
      ...env,
      TURN_COORDINATOR_PORT: '0',
    });
    return { stop: () => app.close(), cpuMs: () => undefined };
  }
  const port = await freePort();
  // BENCH_COORDINATOR_PROFILE=<dir>: the coordinator process under `--cpu-prof`, its whole
  // life (start-up and set-up included), written to <dir>/turn-coordinator/ when it stops.
  const profileDir = process.env.BENCH_COORDINATOR_PROFILE;
  const server = await startProcess(
    'turn-coordinator',
    [...COORDINATOR_NODE_FLAGS, resolve(__dirname, '../services/turn-coordinator/main.js')],
    { ...env, TURN_COORDINATOR_PORT: String(port) },
    port,
    '/healthz',
    profileDir ? { profileDir } : {},
  );
  return { stop: server.stop, cpuMs: () => procCpuMs(server.pid) };
}

/** The two echoes (bench/echo-server.ts) in a process of their own, or in this one. */
async function startEchoes(
  inProcess: boolean,
  natsUrl: string,
  rawSubject: string,
  libSubject: string,
): Promise<Running> {
  if (inProcess) {
    const echoClient = await NatsClient.connect({ url: natsUrl, name: 'bench-echo' });
    rawEcho(echoClient.nc, rawSubject, echoReply);
    const echoApp = await nestEcho(echoClient, libSubject, CheckTurnRequest, echoReply);
    await echoClient.nc.flush();
    return {
      stop: async () => {
        await echoApp.close();
        await echoClient.close();
      },
      cpuMs: () => undefined,
    };
  }
  const child = spawnNode(resolve(__dirname, 'echo-server.js'), { NATS_URL: natsUrl }, [
    rawSubject,
    libSubject,
  ]);
  await child.waitForLine('ready').catch(async (e: Error) => {
    await child.kill('SIGKILL');
    throw e;
  });
  return { stop: () => child.kill('SIGTERM'), cpuMs: () => procCpuMs(child.child.pid) };
}

/**
 * Turn coordinator latency on loopback, the coordinator in a process of its own with a fake
 * ingest in the bench's (`BENCH_IN_PROCESS=1` or `BENCH_CPU_PROFILE`: all in one process):
 * `dirigent.turn.check` p50/p99 at 200 and 1000 requests/s spread over 1000 chat channels,
 * and turn-complete (an empty turn) → `turn.granted` of the next speaker, p50/p99.
 * Needs NATS (`NATS_URL`) and Postgres (`DATABASE_URL`), as the service does.
 */
export async function benchTurnCoordinator(): Promise<BenchResult> {
  const inProcess = !!(process.env.BENCH_IN_PROCESS || process.env.BENCH_CPU_PROFILE);
  const world = await startCoordinatorWorld(CHANNELS, (env) => startCoordinator(inProcess, env));
  const { natsUrl, client, nats, orm, coordinator, guildId, agents, channels } = world;
  const { current, grantWaiters } = world;
  try {
    // Measure the steady state: wait until the reactor has no commit left, then until the
    // channel projection's checkpoint holds the channels' last commit.
    let backlog = 0;
    const reactorBacklog = async () => {
      const r = await client.jsm.consumers.info(Streams.eventStore, Durables.coordinatorReactor);
      return r.num_pending + r.num_ack_pending;
    };
    await waitFor(async () => (backlog = await reactorBacklog()) === 0, SETTLE_MS, 100).catch(
      () => undefined,
    );
    const store = new EventStore(nats);
    let target = 0;
    for (const c of channels) {
      target = Math.max(target, await store.version(subject.aggregate(Aggregates.channel, c)));
    }
    const projected = async () =>
      Number(
        (
          await orm.em
            .fork()
            .findOne(ProjectionCheckpoint, { name: Durables.coordinatorProjection })
        )?.lastSeq ?? 0,
      );
    await waitFor(async () => (await projected()) >= target, SETTLE_MS, 100).catch(() => {
      backlog += 1;
    });

    // check-turn next to its anchors (bench/anchors.ts): a raw @nats-io echo and the same
    // echo through the messaging layer (Nest, the transport, the contract pipe), served on a
    // connection of their own from a process of their own, as the coordinator is served from
    // its own. Rounds of one second per target at the same rate, in turn, so that drift on the
    // machine hits all alike.
    const rawSubject = `bench.${uid('raw-echo')}`;
    const libSubject = `bench.${uid('lib-echo')}`;
    const echoes = await startEchoes(inProcess, natsUrl, rawSubject, libSubject);
    const body = (i: number) => ({
      guildId,
      channelId: channels[(i * 7919) % channels.length],
      agentId: agents[i % 2].agentId,
    });
    const targets: Record<Target, (i: number) => Promise<boolean>> = {
      raw: (i) =>
        client.nc
          .request(rawSubject, JSON.stringify(body(i)), { timeout: 5000 })
          .then((m) => m.json<{ ok: boolean }>().ok),
      messaging: (i) => nats.request(libSubject, body(i)).then((r) => r.ok),
      check: (i) => nats.request<CheckTurnResult>(Subjects.turn.check, body(i)).then((r) => r.ok),
    };
    const measure = async (rate: number) => {
      const samples: Record<Target, number[]> = { raw: [], messaging: [], check: [] };
      const cpu: RoundCpu = {
        raw: { coordinator: [], echoes: [] },
        messaging: { coordinator: [], echoes: [] },
        check: { coordinator: [], echoes: [] },
      };
      const servers = { coordinator, echoes };
      let errors = 0;
      let fired = 0;
      const probe = startStallProbe();
      for (let pass = 0; pass < CHECK_SECONDS; pass++) {
        for (let k = 0; k < TARGETS.length; k++) {
          const target = TARGETS[(pass + k) % TARGETS.length];
          const before = { coordinator: coordinator.cpuMs(), echoes: echoes.cpuMs() };
          await openLoop(rate, rate, async () => {
            const i = fired++;
            const started = process.hrtime.bigint();
            const ok = await targets[target](i);
            samples[target].push(msSince(started));
            if (!ok) errors++;
          });
          // Ticks of 10 ms against rounds of a second; time descheduled is not in them.
          for (const server of ['coordinator', 'echoes'] as const) {
            const [from, to] = [before[server], servers[server].cpuMs()];
            if (from !== undefined && to !== undefined) cpu[target][server].push(to - from);
          }
        }
      }
      return {
        samples,
        errors,
        stalls: await probe.stop(),
        cpu: inProcess ? undefined : cpu,
      };
    };
    let at200: Awaited<ReturnType<typeof measure>> | undefined;
    let at1000: Awaited<ReturnType<typeof measure>> | undefined;
    await profilePhase('turn-check', async () => {
      at200 = await measure(200);
      at1000 = await measure(1000);
    });
    await echoes.stop();

    // Empty turns: the speaker passes, the next one is granted.
    const grantSample: number[] = [];
    let missing = 0;
    await openLoop(GRANT_RATE, GRANT_SAMPLES, async (i) => {
      const channelId = channels[i % channels.length];
      const holder = current.get(channelId)!.agentId;
      const granted = new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          missing++;
          grantWaiters.delete(channelId);
          resolve();
        }, 10_000);
        grantWaiters.set(channelId, (agentId) => {
          if (agentId === holder) return;
          clearTimeout(timer);
          grantWaiters.delete(channelId);
          grantSample.push(msSince(started));
          resolve();
        });
      });
      const started = process.hrtime.bigint();
      await nats.publishEvent(
        subject.turnComplete(channelId),
        'turn.complete',
        { guildId, channelId, agentId: holder, runId: `bench-${i}`, text: 'NO_REPLY' },
        { id: `bench-complete:${channelId}:${i}` },
      );
      await granted;
    });

    const result: BenchResult = {
      servers: inProcess ? 'in this process' : 'a process each',
      channels: CHANNELS,
      ...sideBySide('@200/s', at200!.samples),
      ...stalls('@200/s', at200!.stalls),
      ...cpuPerRequest(200, '@200/s', at200!.cpu),
      ...sideBySide('@1000/s', at1000!.samples),
      ...stalls('@1000/s', at1000!.stalls),
      ...cpuPerRequest(1000, '@1000/s', at1000!.cpu),
      // Spans cost nothing while OTEL_EXPORTER_OTLP_ENDPOINT is unset (no SDK loaded): this
      // run's check-turn/raw p50 is the OTLP-off figure, against the same anchor as before.
      'OTLP tracing': process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? 'on' : 'off',
      'check-turn/raw p50 @200/s, OTLP off': process.env.OTEL_EXPORTER_OTLP_ENDPOINT
        ? 'n/a (OTLP on)'
        : round(percentile(at200!.samples.check, 50) / percentile(at200!.samples.raw, 50), 2),
      'check-turn errors': at200!.errors + at1000!.errors,
      'grant after empty turn p50 ms': round(percentile(grantSample, 50)),
      'grant after empty turn p99 ms': round(percentile(grantSample, 99)),
      'grant samples': grantSample.length,
      'grants missing': missing,
      'event-store backlog when measuring': backlog,
    };
    return { ...result, results: writeResults(result, CHANNELS) };
  } finally {
    await world.stop();
  }
}
