import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { migrate } from '@dirigent/persistence';
import { snowflake, testDatabaseUrl, testNatsUrl } from '@dirigent/testing';
import { percentile, round, type BenchResult } from './stats';

const TOKEN = 'bench-gateway-token-0123456789';
const PORTKEY_VERSION = '1.15.2';
const WARMUP = 500;
const PHASE_MS = Number(process.env.LLM_BENCH_PHASE_MS ?? 3_000);
const ROUNDS = Number(process.env.LLM_BENCH_ROUNDS ?? 3);
const MAX_REQUESTS = 60_000;
const ROOT = resolve(__dirname, '..', '..');
const RESULTS = join(ROOT, 'bench', 'results');

const BODY = (model: string) =>
  JSON.stringify({
    model,
    messages: [{ role: 'user', content: 'How far is the moon?' }],
    max_tokens: 64,
  });

/** A minimal OpenAI chat completions upstream, in its own thread. */
const UPSTREAM = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({
      id: 'chatcmpl-bench', object: 'chat.completion', created: 1, model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'About 384,400 km.' }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 },
    }));
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => server.close(() => process.exit(0)));
`;

/** Closed-loop HTTP clients, in their own thread; replies with the latencies in ms. */
const LOAD = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { port, path, headers, guilds, clients, warmup, durationMs, maxRequests, body } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
function post(client) {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers,
        ...(guilds ? { 'x-dirigent-guild': guilds[client % guilds.length] } : {}) } },
      (res) => { let t = ''; res.on('data', (d) => { t += d; }); res.on('end', () => res.statusCode === 200
        ? resolve(Number(process.hrtime.bigint() - started) / 1e6)
        : reject(new Error('HTTP ' + res.statusCode + ' from ' + path + ' ' + t.slice(0, 300)))); });
    req.on('error', reject);
    req.end(body);
  });
}
(async () => {
  for (let i = 0; i < warmup; i += clients) await Promise.all(Array.from({ length: clients }, (_, c) => post(c)));
  const latencies = [];
  const start = performance.now();
  const deadline = start + durationMs;
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    while (performance.now() < deadline && latencies.length < maxRequests) latencies.push(await post(c));
  }));
  parentPort.postMessage({ latencies, seconds: (performance.now() - start) / 1000 });
  agent.destroy();
})().catch((e) => parentPort.postMessage({ error: String(e && e.message || e) }));
`;

/**
 * Loaded with `-r` into both gateways when profiling: SIGTERM exits normally, so
 * `--cpu-prof` writes its profile (a signal death would not).
 */
const EXIT_ON_SIGTERM = `process.on('SIGTERM', () => process.exit(0));`;

interface Target {
  port: number;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Spread the clients over these guilds (one budget each). */
  guilds?: string[];
}

interface Phase {
  latencies: number[];
  rps: number;
}

function load(t: Target, clients: number): Promise<Phase> {
  const worker = new Worker(LOAD, {
    eval: true,
    workerData: {
      ...t,
      clients,
      warmup: WARMUP,
      durationMs: PHASE_MS,
      maxRequests: MAX_REQUESTS,
    },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { latencies: number[]; seconds: number; error?: string }) => {
      void worker.terminate();
      if (m.error) reject(new Error(m.error));
      else resolve({ latencies: m.latencies, rps: m.latencies.length / m.seconds });
    });
    worker.once('error', reject);
  });
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
  });
}

async function waitHttp(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: exited ${child.exitCode}: ${log()}`);
    const ok = await fetch(url).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer within 60 s: ${log()}`);
}

interface Server {
  port: number;
  stop(): Promise<void>;
}

async function startProcess(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  port: number,
  readyPath: string,
  profileDir?: string,
): Promise<Server> {
  const nodeArgs: string[] = [];
  if (profileDir) {
    const hook = join(profileDir, 'exit-on-sigterm.js');
    writeFileSync(hook, EXIT_ON_SIGTERM);
    mkdirSync(join(profileDir, name), { recursive: true });
    nodeArgs.push('-r', hook, '--cpu-prof', `--cpu-prof-dir=${join(profileDir, name)}`);
  }
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  await waitHttp(`http://127.0.0.1:${port}${readyPath}`, child, () => stderr);
  return {
    port,
    stop: () =>
      new Promise<void>((res) => {
        if (child.exitCode !== null) return res();
        const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(kill);
          res();
        });
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Portkey's open-source gateway, installed on demand into a cache folder (never into the
 * project's package.json). Undefined, with the reason, when it cannot be installed.
 */
function portkeyEntry(): { entry?: string; note?: string } {
  const cache =
    process.env.LLM_BENCH_CACHE ??
    join(ROOT, 'node_modules', '.cache', 'dirigent-bench', `portkey-gateway-${PORTKEY_VERSION}`);
  const pkg = join(cache, 'node_modules', '@portkey-ai', 'gateway');
  const entry = join(pkg, 'build', 'start-server.js');
  const installed = () => {
    try {
      return (
        JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version === PORTKEY_VERSION
      );
    } catch {
      return false;
    }
  };
  if (!installed() || !existsSync(entry)) {
    mkdirSync(cache, { recursive: true });
    process.stderr.write(`installing @portkey-ai/gateway@${PORTKEY_VERSION} into ${cache}...\n`);
    const r = spawnSync(
      'npm',
      [
        'install',
        '--prefix',
        cache,
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        `@portkey-ai/gateway@${PORTKEY_VERSION}`,
      ],
      { encoding: 'utf8', timeout: 300_000 },
    );
    if (r.status !== 0 || !installed() || !existsSync(entry))
      return {
        note: `Portkey's gateway skipped: npm install --prefix ${cache} @portkey-ai/gateway@${PORTKEY_VERSION} failed (${(r.error?.message ?? r.stderr ?? '').trim().split('\n').slice(-1)[0] || `exit ${r.status}`})`,
      };
  }
  return { entry };
}

const median = (xs: number[]) => percentile(xs, 50);

interface Side {
  p50: number;
  p99: number;
  rps: number;
}
const side = (p: Phase): Side => ({
  p50: percentile(p.latencies, 50),
  p99: percentile(p.latencies, 99),
  rps: p.rps,
});

interface Round {
  direct1: Side;
  dirigent1: Side;
  portkey1?: Side;
  direct50: Side;
  dirigent50: Side;
  portkey50?: Side;
}

/** The figures of one comparison as an SVG bar chart (no chart library). */
function chart(summary: Summary): string {
  const W = 760;
  const H = 360;
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const panels: { title: string; unit: string; bars: { label: string; value: number }[] }[] = [
    {
      title: 'requests/s at 50 clients (higher is better)',
      unit: '/s',
      bars: [
        { label: 'Dirigent', value: summary.dirigent50.rps },
        ...(summary.portkey50 ? [{ label: 'Portkey', value: summary.portkey50.rps }] : []),
        { label: 'direct', value: summary.direct50.rps },
      ],
    },
    {
      title: 'added p50 latency at 1 client (lower is better)',
      unit: ' ms',
      bars: [
        { label: 'Dirigent', value: summary.addedP50.dirigent },
        ...(summary.addedP50.portkey !== undefined
          ? [{ label: 'Portkey', value: summary.addedP50.portkey }]
          : []),
      ],
    },
  ];
  const colours: Record<string, string> = {
    Dirigent: '#2f6fdf',
    Portkey: '#d9822b',
    direct: '#8a8f98',
  };
  const parts: string[] = [];
  const pw = W / 2;
  panels.forEach((panel, i) => {
    const x0 = i * pw + 30;
    const top = 70;
    const bottom = H - 50;
    const max = Math.max(...panel.bars.map((b) => b.value), 1e-9);
    const bw = Math.min(80, (pw - 60) / panel.bars.length - 20);
    parts.push(
      `<text x="${x0}" y="50" font-size="14" font-weight="bold">${esc(panel.title)}</text>`,
      `<line x1="${x0}" y1="${bottom}" x2="${x0 + pw - 60}" y2="${bottom}" stroke="#444"/>`,
    );
    panel.bars.forEach((b, j) => {
      const h = ((bottom - top) * b.value) / max;
      const x = x0 + 20 + j * (bw + 20);
      const v = b.value >= 100 ? Math.round(b.value).toString() : b.value.toFixed(2);
      parts.push(
        `<rect x="${x}" y="${bottom - h}" width="${bw}" height="${h}" fill="${colours[b.label]}"/>`,
        `<text x="${x + bw / 2}" y="${bottom - h - 6}" font-size="12" text-anchor="middle">${v}${panel.unit}</text>`,
        `<text x="${x + bw / 2}" y="${bottom + 18}" font-size="12" text-anchor="middle">${b.label}</text>`,
      );
    });
  });
  const ratio = (r: number | undefined, what: string) =>
    r === undefined ? `${what}: Portkey not measured` : `${what}: ${r.toFixed(2)}×`;
  const footer = `${ratio(summary.ratios.throughput50, 'throughput Dirigent/Portkey @50')} · ${ratio(summary.ratios.addedP50at1, 'added p50 Dirigent/Portkey @1')} · median of ${summary.rounds} same-run rounds`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="30" y="24" font-size="16" font-weight="bold">Model gateway vs Portkey ${PORTKEY_VERSION}, same fake OpenAI upstream (${esc(summary.at)})</text>`,
    ...parts,
    `<text x="30" y="${H - 12}" font-size="12" fill="#333">${esc(footer)}</text>`,
    `</svg>`,
  ].join('\n');
}

/** The medians over the rounds, and each round's figures. */
interface Summary extends Round {
  at: string;
  rounds: number;
  phaseMs: number;
  portkey: string;
  addedP50: { dirigent: number; portkey?: number };
  ratios: { throughput50?: number; addedP50at1?: number };
  perRound: Round[];
}

function medianSide(sides: Side[]): Side {
  return {
    p50: median(sides.map((s) => s.p50)),
    p99: median(sides.map((s) => s.p99)),
    rps: median(sides.map((s) => s.rps)),
  };
}

/**
 * Self time over the profiles in `dir`, as shares of the busy (non-idle) time: the top `n`
 * functions, then the top packages (a `node_modules` package, a `dist` folder or `node:`).
 */
export function topFrames(dir: string, n = 25): string[] {
  const self = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let busy = 0;
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.cpuprofile'))) {
    const prof = JSON.parse(readFileSync(join(dir, f), 'utf8')) as {
      nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
      samples: number[];
      timeDeltas: number[];
    };
    const byId = new Map(prof.nodes.map((x) => [x.id, x]));
    prof.samples.forEach((id, i) => {
      const cf = byId.get(id)!.callFrame;
      if (cf.functionName === '(idle)') return;
      const url = cf.url.replace(/^.*\/node_modules\//, '').replace(/^.*\/dist\//, 'dist/');
      const key = `${cf.functionName || '(anonymous)'} ${url}:${cf.lineNumber + 1}`;
      const pkg = !url
        ? cf.functionName
        : url.startsWith('dist/')
          ? url.split('/').slice(0, 4).join('/')
          : url.startsWith('node:')
            ? url.split('/').slice(0, 2).join('/')
            : url
                .split('/')
                .slice(0, url.startsWith('@') ? 2 : 1)
                .join('/');
      const dt = prof.timeDeltas[i] ?? 0;
      self.set(key, (self.get(key) ?? 0) + dt);
      byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + dt);
      busy += dt;
    });
  }
  const top = (m: Map<string, number>, k: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([key, us]) => `${((100 * us) / busy).toFixed(1).padStart(5)}%  ${key}`);
  return [
    `busy ${(busy / 1e6).toFixed(1)} s; by function:`,
    ...top(self, n),
    'by package:',
    ...top(byPackage, 15),
  ];
}

/**
 * The model gateway next to Portkey's open-source gateway (`@portkey-ai/gateway`), both as
 * their own processes in front of the same minimal OpenAI upstream (its own thread), with
 * budgets and the usage ledger on (Postgres, NATS). Load comes from a third thread:
 * closed-loop clients at 1 and at 50. Each round measures direct, Dirigent and Portkey
 * back to back; the figures are the medians over the rounds of the same-run ratios.
 * Writes bench/results/llm-gateway.json and .svg.
 *
 * `LLM_BENCH_PROFILE=<dir>` runs both gateways under `--cpu-prof` and prints their top
 * frames (self time).
 */
export async function benchLlmGateway(): Promise<BenchResult> {
  await migrate(testDatabaseUrl());
  const upstream = new Worker(UPSTREAM, { eval: true });
  const upstreamPort = await new Promise<number>((resolve, reject) => {
    upstream.once('message', resolve);
    upstream.once('error', reject);
  });
  const dir = mkdtempSync(join(tmpdir(), 'llm-bench-'));
  const profileDir = process.env.LLM_BENCH_PROFILE;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const config = join(dir, 'llm.json');
  writeFileSync(
    config,
    JSON.stringify({
      providers: [{ id: 'local', kind: 'openai', baseUrl: `http://127.0.0.1:${upstreamPort}/v1` }],
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
    const dirigentPort = await freePort();
    const dirigent = await startProcess(
      'dirigent',
      [join(ROOT, 'dist', 'services', 'llm-gateway', 'main.js')],
      {
        NATS_URL: testNatsUrl(),
        DATABASE_URL: testDatabaseUrl(),
        LLM_GATEWAY_PORT: String(dirigentPort),
        DIRIGENT_LLM_CONFIG: config,
        DIRIGENT_GATEWAY_TOKEN: TOKEN,
        LOG_FORMAT: 'json',
      },
      dirigentPort,
      '/healthz',
      profileDir,
    );
    servers.push(dirigent);
    const { entry, note } = portkeyEntry();
    let portkey: Server | undefined;
    if (entry) {
      const port = await freePort();
      portkey = await startProcess(
        'portkey',
        [entry, `--port=${port}`, '--headless'],
        {},
        port,
        '/',
        profileDir,
      );
      servers.push(portkey);
    } else process.stderr.write(`${note}\n`);

    const direct: Target = {
      port: upstreamPort,
      path: '/v1/chat/completions',
      headers: {},
      body: BODY('bench-model'),
    };
    const dirigentTarget = (guilds: string[]): Target => ({
      port: dirigent.port,
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: BODY('purpose:agent'),
      guilds,
    });
    const portkeyTarget: Target | undefined = portkey && {
      port: portkey.port,
      path: '/v1/chat/completions',
      headers: {
        authorization: 'Bearer sk-bench-not-a-key',
        'x-portkey-provider': 'openai',
        'x-portkey-custom-host': `http://127.0.0.1:${upstreamPort}/v1`,
      },
      body: BODY('bench-model'),
    };

    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      process.stderr.write(`  llm-gateway round ${r + 1}/${ROUNDS}\n`);
      // every client of a phase on one guild: all reservations contend for one budget
      const guild = [snowflake()];
      const round: Round = {
        direct1: side(await load(direct, 1)),
        dirigent1: side(await load(dirigentTarget(guild), 1)),
        portkey1: portkeyTarget && side(await load(portkeyTarget, 1)),
        direct50: side(await load(direct, 50)),
        dirigent50: side(await load(dirigentTarget(guild), 50)),
        portkey50: portkeyTarget && side(await load(portkeyTarget, 50)),
      };
      rounds.push(round);
    }

    const pick = (k: keyof Round) =>
      rounds.every((x) => x[k]) ? medianSide(rounds.map((x) => x[k]!)) : undefined;
    const addedD = rounds.map((x) => x.dirigent1.p50 - x.direct1.p50);
    const addedP = portkeyTarget ? rounds.map((x) => x.portkey1!.p50 - x.direct1.p50) : undefined;
    const summary: Summary = {
      at: new Date().toISOString(),
      rounds: ROUNDS,
      phaseMs: PHASE_MS,
      portkey: portkeyTarget ? `@portkey-ai/gateway ${PORTKEY_VERSION}` : (note ?? 'skipped'),
      direct1: pick('direct1')!,
      dirigent1: pick('dirigent1')!,
      portkey1: pick('portkey1'),
      direct50: pick('direct50')!,
      dirigent50: pick('dirigent50')!,
      portkey50: pick('portkey50'),
      addedP50: { dirigent: median(addedD), portkey: addedP && median(addedP) },
      ratios: portkeyTarget
        ? {
            throughput50: median(rounds.map((x) => x.dirigent50.rps / x.portkey50!.rps)),
            addedP50at1: median(
              rounds.map(
                (x) =>
                  (x.dirigent1.p50 - x.direct1.p50) /
                  Math.max(1e-3, x.portkey1!.p50 - x.direct1.p50),
              ),
            ),
          }
        : {},
      perRound: rounds,
    };
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'llm-gateway.json'), `${JSON.stringify(summary, null, 2)}\n`);
    writeFileSync(join(RESULTS, 'llm-gateway.svg'), `${chart(summary)}\n`);

    const result: BenchResult = {};
    const ms = (s: Side) => `${round(s.p50)} / ${round(s.p99)}`;
    result['direct p50/p99 ms @1'] = ms(summary.direct1);
    result['Dirigent p50/p99 ms @1'] = ms(summary.dirigent1);
    if (summary.portkey1) result['Portkey p50/p99 ms @1'] = ms(summary.portkey1);
    result['Dirigent added p50 ms @1'] = round(summary.addedP50.dirigent);
    if (summary.addedP50.portkey !== undefined)
      result['Portkey added p50 ms @1'] = round(summary.addedP50.portkey);
    result['direct requests/s @50'] = Math.round(summary.direct50.rps);
    result['Dirigent requests/s @50 (one guild)'] = Math.round(summary.dirigent50.rps);
    result['Dirigent p50/p99 ms @50'] = ms(summary.dirigent50);
    if (summary.portkey50) {
      result['Portkey requests/s @50'] = Math.round(summary.portkey50.rps);
      result['Portkey p50/p99 ms @50'] = ms(summary.portkey50);
      result['throughput Dirigent/Portkey @50 (median ratio, target ≥ 2)'] = round(
        summary.ratios.throughput50!,
        2,
      );
      result['added p50 Dirigent/Portkey @1 (median ratio, target ≤ 0.5)'] = round(
        summary.ratios.addedP50at1!,
        2,
      );
    } else result['Portkey'] = note ?? 'skipped';
    result['results'] = 'bench/results/llm-gateway.json, bench/results/llm-gateway.svg';
    return result;
  } finally {
    for (const s of servers.reverse()) await s.stop();
    upstream.postMessage('stop');
    await new Promise((r) => upstream.once('exit', r));
    if (profileDir)
      for (const name of ['dirigent', 'portkey'])
        if (existsSync(join(profileDir, name)))
          process.stderr.write(
            `\ntop frames (self time), ${name}:\n${topFrames(join(profileDir, name)).join('\n')}\n`,
          );
  }
}
