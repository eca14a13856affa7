import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from '@dirigent/persistence';
import { freePort, snowflake } from '@dirigent/testing';
import { topFrames } from './llm-gateway/profiles';
import { ownStores } from './own-stores';
import { procCpuMs } from './soak-cost';
import {
  portkeyEntry,
  PORTKEY_VERSION,
  ROOT,
  startProcess,
  type Observe,
  type Server,
} from './llm-gateway/processes';
import { chart, resultTable, side, summarize, type Round } from './llm-gateway/report';
import {
  chatBody,
  load,
  loadInterleaved,
  PHASE_MS,
  startUpstream,
  type Target,
} from './llm-gateway/workers';
import type { BenchResult } from './stats';

const TOKEN = 'bench-gateway-token-0123456789';
const ROUNDS = Number(process.env.LLM_BENCH_ROUNDS ?? 3);

const loadAverage = () => loadavg().map((x) => Number(x.toFixed(2)));

/** Where the gateways keep their state: NATS (usage events) and Postgres (budgets, ledger). */
interface Stores {
  natsUrl: string;
  databaseUrl: string;
}

/** Dirigent's gateway of the build under `root`, with budgets and the ledger on. */
async function startDirigent(
  name: string,
  root: string,
  config: string,
  observe: Observe,
  stores: Stores,
): Promise<Server> {
  const port = await freePort();
  return startProcess(
    name,
    [join(root, 'dist', 'services', 'llm-gateway', 'main.js')],
    {
      NATS_URL: stores.natsUrl,
      DATABASE_URL: stores.databaseUrl,
      LLM_GATEWAY_PORT: String(port),
      DIRIGENT_LLM_CONFIG: config,
      DIRIGENT_GATEWAY_TOKEN: TOKEN,
      LOG_FORMAT: 'json',
    },
    port,
    '/healthz',
    observe,
  );
}

/**
 * The model gateway next to Portkey's open-source gateway (`@portkey-ai/gateway`), both as
 * their own processes in front of the same minimal OpenAI upstream (its own thread), with
 * budgets and the usage ledger on (Postgres, NATS). Load comes from a third thread:
 * closed-loop clients at 1 and at 50. Each round measures one client against direct,
 * Dirigent and Portkey taking turns in 250 ms slices (each gets `PHASE_MS` in all), then 50
 * clients against each, one after the other; the figures are the medians over the rounds
 * of the same-run ratios.
 * Writes `llm-gateway.json` and `.svg` to `$LLM_BENCH_RESULTS` (default bench/results).
 *
 * - `LLM_BENCH_PROFILE=<dir>`: both gateways under `--cpu-prof`; prints their top frames.
 * - `LLM_BENCH_STAGES=<dir>`: both gateways with the per-stage timer (`llm-gateway/stages.ts`);
 *   prints where a 1-client request's time went.
 * - `LLM_BENCH_BASELINE=<root>`: also the gateway built under `<root>` (another commit's
 *   checkout, `dist/` built), measured in every round next to this one (in alternating
 *   order): an A/B in the same conditions.
 */
export async function benchLlmGateway(): Promise<BenchResult> {
  const loadAtStart = loadAverage();
  // A nats-server and a database of its own unless NATS_URL / DATABASE_URL name them: every
  // call is a usage event and a ledger row (~50,000 a run) that would otherwise stay on the
  // machine's stream and tables, and a stream that grows from run to run is not the same
  // server from one run to the next.
  const stores = await ownStores();
  const upstream = await startUpstream();
  const dir = mkdtempSync(join(tmpdir(), 'llm-bench-'));
  const observe: Observe = {
    profileDir: process.env.LLM_BENCH_PROFILE,
    stagesDir: process.env.LLM_BENCH_STAGES,
  };
  for (const d of [observe.profileDir, observe.stagesDir]) if (d) mkdirSync(d, { recursive: true });
  const baselineRoot = process.env.LLM_BENCH_BASELINE;
  const resultsDir = process.env.LLM_BENCH_RESULTS ?? join(ROOT, 'bench', 'results');
  const config = join(dir, 'llm.json');
  writeFileSync(
    config,
    JSON.stringify({
      providers: [{ id: 'local', kind: 'openai', baseUrl: `http://127.0.0.1:${upstream.port}/v1` }],
      models: [
        {
          id: 'bench',
          provider: 'local',
          upstream: 'bench-model',
          inputUsdPerMTok: 1,
          outputUsdPerMTok: 2,
        },
      ],
      purposes: { agent: { model: 'bench' } },
      budgets: { defaultGuildUsdPerDay: 1_000_000 },
    }),
  );
  const servers: Server[] = [];
  try {
    await migrate(stores.databaseUrl);
    const dirigent = await startDirigent('dirigent', ROOT, config, observe, stores);
    servers.push(dirigent);
    const baseline =
      baselineRoot && (await startDirigent('baseline', baselineRoot, config, observe, stores));
    if (baseline) servers.push(baseline);
    const { entry, note } = portkeyEntry();
    let portkey: Server | undefined;
    if (entry) {
      const port = await freePort();
      const args = [entry, `--port=${port}`, '--headless'];
      portkey = await startProcess('portkey', args, {}, port, '/', observe);
      servers.push(portkey);
    } else process.stderr.write(`${note}\n`);

    const direct: Target = {
      port: upstream.port,
      path: '/v1/chat/completions',
      headers: {},
      body: chatBody('bench-model'),
    };
    const gateway = (s: Server, guilds: string[]): Target => ({
      port: s.port,
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: chatBody('purpose:agent'),
      guilds,
    });
    const portkeyTarget: Target | undefined = portkey && {
      port: portkey.port,
      path: '/v1/chat/completions',
      headers: {
        authorization: 'Bearer sk-bench-not-a-key',
        'x-portkey-provider': 'openai',
        'x-portkey-custom-host': `http://127.0.0.1:${upstream.port}/v1`,
      },
      body: chatBody('bench-model'),
    };

    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      process.stderr.write(`  llm-gateway round ${r + 1}/${ROUNDS}\n`);
      // every client of a phase on one guild: all reservations contend for one budget
      const guild = [snowflake()];
      const baseGuild = [snowflake()];
      // 1 client: every target in turn, in short slices; 50 clients: one after the other
      const at1 = await loadInterleaved([
        direct,
        gateway(dirigent, guild),
        ...(baseline ? [gateway(baseline, baseGuild)] : []),
        ...(portkeyTarget ? [portkeyTarget] : []),
      ]);
      const [direct1, dirigent1] = at1.map(side);
      const baseline1 = baseline ? side(at1[2]) : undefined;
      const portkey1 = portkeyTarget ? side(at1[at1.length - 1]) : undefined;
      // 50 clients, with the gateway process's CPU over the phase (0 off Linux: not shown)
      const at50of = async (t: Target, s?: Server) => {
        const before = procCpuMs(s?.pid);
        const phase = await load(t, 50);
        return side(phase, procCpuMs(s?.pid) - before);
      };
      const at50 = async () => {
        const a = () => at50of(gateway(dirigent, guild), dirigent);
        const b = async () => baseline && at50of(gateway(baseline, baseGuild), baseline);
        if (r % 2 === 0) return { dirigent: await a(), baseline: await b() };
        const base = await b();
        return { dirigent: await a(), baseline: base };
      };
      const direct50 = side(await load(direct, 50));
      const both50 = await at50();
      const portkey50 = portkeyTarget && (await at50of(portkeyTarget, portkey));
      rounds.push({
        direct1,
        dirigent1,
        ...(baseline1 ? { baseline1 } : {}),
        portkey1,
        direct50,
        dirigent50: both50.dirigent,
        ...(both50.baseline ? { baseline50: both50.baseline } : {}),
        portkey50,
      });
    }

    const summary = summarize(rounds, {
      at: new Date().toISOString(),
      phaseMs: PHASE_MS,
      portkey: portkeyTarget ? `@portkey-ai/gateway ${PORTKEY_VERSION}` : (note ?? 'skipped'),
      load: { start: loadAtStart, end: loadAverage() },
    });
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, 'llm-gateway.json'), `${JSON.stringify(summary, null, 2)}\n`);
    writeFileSync(join(resultsDir, 'llm-gateway.svg'), `${chart(summary)}\n`);
    return {
      ...resultTable(summary, note),
      results: `${join(resultsDir, 'llm-gateway.json')}, ${join(resultsDir, 'llm-gateway.svg')}`,
    };
  } finally {
    for (const s of servers.reverse()) await s.stop();
    await upstream.stop();
    await stores.release();
    for (const name of ['dirigent', 'baseline', 'portkey']) {
      if (observe.profileDir && existsSync(join(observe.profileDir, name)))
        process.stderr.write(
          `\ntop frames (self time), ${name}:\n${topFrames(join(observe.profileDir, name)).join('\n')}\n`,
        );
      const stages = observe.stagesDir && join(observe.stagesDir, `${name}.json`);
      if (stages && existsSync(stages))
        process.stderr.write(`\nstages, ${name}:\n${readFileSync(stages, 'utf8')}`);
    }
  }
}
