/**
 * Per-stage timer of one gateway process (`LLM_BENCH_STAGES` in docs/performance.md),
 * loaded with `-r` by the bench when `LLM_BENCH_STAGES=<dir>` is set.
 * Node's own diagnostics channels timestamp each request that had the process to itself
 * (no other request in flight, i.e. the 1-client phases): request received, body read,
 * upstream request created, upstream answer's headers and end, `res.end()` called,
 * response finished (handed to the socket), and the process's CPU time from one such
 * request to the next. At exit the medians (µs) go to `$LLM_BENCH_STAGES_FILE`.
 *
 * Works for any Node HTTP server: for Portkey's gateway (undici's `fetch` upstream) the
 * upstream marks come from undici's channels.
 */
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import http, { ServerResponse, type IncomingMessage } from 'node:http';
import { Socket } from 'node:net';

const STAGES = [
  'received',
  'bodyRead',
  'upstreamRequested',
  'upstreamSent',
  'upstreamHeaders',
  'upstreamEnd',
  'endCalled',
  'finished',
] as const;
type Stage = (typeof STAGES)[number];

interface Call {
  at: Partial<Record<Stage, number>>;
  cpu: NodeJS.CpuUsage;
  solo: boolean;
  /** Time spent inside socket write calls during the call (µs), by peer. */
  writes: Record<string, number>;
}

const file = process.env.LLM_BENCH_STAGES_FILE;
const calls: Call[] = [];
/** Socket writes outside any call (µs) and their count, by peer, between solo calls. */
const idleWrites: Record<string, { us: number; n: number }> = {};
const cpuPerCall: { user: number; system: number }[] = [];
let current: Call | undefined;
let inFlight = 0;
let lastSolo: Call | undefined;

const now = () => Number(process.hrtime.bigint()) / 1000;
const mark = (stage: Stage) => {
  if (current && current.at[stage] === undefined) current.at[stage] = now();
};

if (file) {
  subscribe('http.server.request.start', (m) => {
    const { request } = m as { request: IncomingMessage };
    const call: Call = {
      at: { received: now() },
      cpu: process.cpuUsage(),
      solo: inFlight === 0,
      writes: {},
    };
    if (inFlight > 0 && current) current.solo = false;
    inFlight++;
    if (call.solo && lastSolo) cpuPerCall.push(process.cpuUsage(lastSolo.cpu));
    lastSolo = call.solo ? call : undefined;
    current = call;
    request.once('end', () => mark('bodyRead'));
  });
  subscribe('http.server.response.finish', () => {
    mark('finished');
    inFlight--;
    if (current?.solo) calls.push(current);
    current = undefined;
  });
  subscribe('http.client.request.start', () => mark('upstreamSent'));
  const request = http.request;
  http.request = function (this: unknown, ...args: unknown[]) {
    mark('upstreamRequested');
    return (request as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof request;
  // Socket writes are synchronous system calls (expensive on this machine): time each one.
  const proto = Socket.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const writeGeneric = proto._writeGeneric;
  proto._writeGeneric = function (this: Socket & { server?: unknown }, ...args: unknown[]) {
    const started = now();
    const r = writeGeneric.apply(this, args);
    const us = now() - started;
    const peer = this.server
      ? 'to caller'
      : this.remotePort === 4222
        ? 'to NATS'
        : this.remotePort === 5432
          ? 'to Postgres'
          : 'to upstream';
    if (current) current.writes[peer] = (current.writes[peer] ?? 0) + us;
    else if (inFlight === 0) {
      const w = (idleWrites[peer] ??= { us: 0, n: 0 });
      w.us += us;
      w.n++;
    }
    return r;
  };
  subscribe('http.client.response.finish', (m) => {
    mark('upstreamHeaders');
    (m as { response: IncomingMessage }).response.once('end', () => mark('upstreamEnd'));
  });
  subscribe('undici:request:create', () => mark('upstreamRequested'));
  subscribe('undici:client:sendHeaders', () => mark('upstreamSent'));
  subscribe('undici:request:headers', () => mark('upstreamHeaders'));
  subscribe('undici:request:trailers', () => mark('upstreamEnd'));
  const end = ServerResponse.prototype.end;
  ServerResponse.prototype.end = function (this: ServerResponse, ...args: unknown[]) {
    mark('endCalled');
    return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as typeof end;

  process.on('exit', () => {
    const med = (xs: number[]) => {
      const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
      return s.length ? Math.round(s[Math.floor(s.length / 2)]) : null;
    };
    const steps: Record<string, number | null> = {};
    for (let i = 1; i < STAGES.length; i++) {
      const from = STAGES[i - 1];
      const to = STAGES[i];
      steps[`${from} → ${to}`] = med(
        calls
          .filter((c) => c.at[to] !== undefined)
          .map((c) => {
            const prior = STAGES.slice(0, i)
              .reverse()
              .find((s) => c.at[s] !== undefined);
            return c.at[to]! - c.at[prior ?? from]!;
          }),
      );
    }
    const peers = [...new Set(calls.flatMap((c) => Object.keys(c.writes)))];
    const summary = {
      soloCalls: calls.length,
      'socket writes in a call (µs, medians)': Object.fromEntries(
        peers.map((p) => [p, med(calls.map((c) => c.writes[p] ?? 0))]),
      ),
      'socket writes between calls (µs per call)': Object.fromEntries(
        Object.entries(idleWrites).map(([p, w]) => [
          p,
          Math.round(w.us / Math.max(1, calls.length)),
        ]),
      ),
      'received → finished (µs)': med(calls.map((c) => c.at.finished! - c.at.received!)),
      'process CPU per call (µs, from one call to the next: user, system)': [
        med(cpuPerCall.map((c) => c.user)),
        med(cpuPerCall.map((c) => c.system)),
      ],
      'steps (µs, medians)': steps,
    };
    writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
  });
}
