/**
 * Start-up timeline of the turn coordinator (docs/performance.md: the first grant
 * after a SIGKILL): a preload that appends one JSON line per step (`t`: ms since
 * the process started, `cpuMs`: its CPU time so far) to $TIMELINE_FILE — require, Nest create
 * (NATS connect, streams, ORM), bootstrap (coherence, timers, projections), each consumer's
 * start and the first grant published. It does nothing in a process whose main module is not
 * the coordinator's, so it can be set for a whole soak:
 *
 *   NODE_OPTIONS="-r $PWD/dist/bench/startup-timeline.js" TIMELINE_FILE=/tmp/tl.jsonl \
 *     node dist/bench/soak.js --kill-every 7 --duration 60
 */
import { appendFileSync } from 'node:fs';
import Module from 'node:module';
import { performance } from 'node:perf_hooks';

type Exports = Record<string, any>;

const main = process.argv[1] ?? '';
const file = /turn-coordinator\/main\.js$/.test(main) ? process.env.TIMELINE_FILE : undefined;

/**
 * Channel history read so far: event-store reads (`loadCommits`: how many, how many from the
 * start, commits returned, wall ms summed over calls that may overlap) and snapshot reads.
 */
const reads = {
  loads: 0,
  fromStart: 0,
  commits: 0,
  ms: 0,
  snapshots: 0,
  snapshotHits: 0,
  /** Reads from the start by the function that asked (the frame after the event store's). */
  fromStartBy: {} as Record<string, number>,
};

function caller(): string {
  const frames = (new Error().stack ?? '').split('\n').slice(3);
  return frames
    .filter((l) => !/event-store\.js|startup-timeline/.test(l))
    .slice(0, 2)
    .map((f) =>
      f
        .trim()
        .replace(/^at /, '')
        .replace(/ \(.*$/, ''),
    )
    .join(' < ');
}

function mark(ev: string, extra: object = {}): void {
  if (!file) return;
  const c = process.cpuUsage();
  const cpuMs = Math.round((c.user + c.system) / 1000);
  const line = {
    pid: process.pid,
    t: +performance.now().toFixed(1),
    abs: Date.now(),
    ev,
    cpuMs,
    ...extra,
  };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/** Marks `label:start` and `label:end` around every call of `obj[name]`. */
function timed(obj: Exports, name: string, label: string | ((...args: any[]) => string)): void {
  const original = obj[name] as (...args: any[]) => unknown;
  obj[name] = function (this: unknown, ...args: any[]) {
    const l = typeof label === 'function' ? label(...args) : label;
    mark(`${l}:start`);
    const r = original.apply(this, args);
    if (r instanceof Promise) return r.finally(() => mark(`${l}:end`));
    mark(`${l}:end`);
    return r;
  };
}

/** What to time, by file (under dist/ or node_modules/). */
const patches: Record<string, (m: Exports) => void> = {
  'libs/messaging/src/connection.js': (m) => timed(m.NatsClient, 'connect', 'nats.connect'),
  'libs/messaging/src/provision.js': (m) => {
    timed(m, 'ensureStream', (_j, s) => `ensureStream ${s.name}`);
    timed(m, 'ensureDurable', (_j, s) => `ensureDurable ${s.durable}`);
  },
  'libs/messaging/src/durable-consumer.js': (m) =>
    timed(m, 'runDurableConsumer', (_c, _s, o) => `consumer ${o.durable}`),
  'libs/messaging/src/jetstream.server.js': (m) =>
    timed(m.JetStreamServer.prototype, 'listen', 'jetstream.listen'),
  'libs/messaging/src/messaging.js': (m) => {
    const publish = m.Messaging.prototype.publish as (...args: any[]) => unknown;
    let first = true;
    m.Messaging.prototype.publish = function (this: unknown, subject: string, ...rest: any[]) {
      if (first && subject.startsWith('dirigent.turn.granted.')) {
        first = false;
        mark('FIRST GRANT published', { reads: { ...reads, ms: Math.round(reads.ms) } });
        // And once more when the first seconds' backlog is done.
        setTimeout(
          () => mark('reads after 5 s', { reads: { ...reads, ms: Math.round(reads.ms) } }),
          5000,
        ).unref();
      }
      return publish.call(this, subject, ...rest);
    };
  },
  'libs/timers/src/durable-timers.js': (m) => {
    timed(m.DurableTimers, 'open', 'timers.open');
    timed(m.DurableTimers.prototype, 'start', 'timers.start');
  },
  'libs/event-store/src/event-store.js': (m) => {
    const load = m.EventStore.prototype.loadCommits as (...args: any[]) => Promise<unknown[]>;
    m.EventStore.prototype.loadCommits = function (this: unknown, ...args: any[]) {
      const t = performance.now();
      reads.loads++;
      if (!args[1]) {
        reads.fromStart++;
        const by = caller();
        reads.fromStartBy[by] = (reads.fromStartBy[by] ?? 0) + 1;
      }
      return load.apply(this, args).then((out) => {
        reads.commits += out.length;
        reads.ms += performance.now() - t;
        return out;
      });
    };
  },
  'libs/event-store/src/snapshots.js': (m) => {
    const read = m.KvSnapshotStore.prototype.read as (...args: any[]) => Promise<unknown>;
    m.KvSnapshotStore.prototype.read = function (this: unknown, ...args: any[]) {
      reads.snapshots++;
      return read.apply(this, args).then((s) => {
        if (s) reads.snapshotHits++;
        return s;
      });
    };
  },
  'libs/event-store/src/projection.js': (m) =>
    timed(m, 'runProjection', (_m, _e, p) => `projection ${p?.name}`),
  'services/turn-coordinator/adapters/cache-coherence.js': (m) =>
    timed(m.CacheCoherence.prototype, 'start', 'coherence.start'),
  'node_modules/@mikro-orm/core/MikroORM.js': (m) => {
    timed(m.MikroORM, 'init', 'orm.init');
    timed(m.MikroORM.prototype, 'discoverEntities', 'orm.discoverEntities');
    timed(m.MikroORM.prototype, 'connect', 'orm.connect');
  },
  'node_modules/@nestjs/core/nest-factory.js': (m) =>
    timed(m.NestFactory, 'create', 'NestFactory.create'),
  'node_modules/@nestjs/core/nest-application.js': (m) => {
    timed(m.NestApplication.prototype, 'init', 'app.init');
    timed(m.NestApplication.prototype, 'listen', 'app.listen');
  },
};

if (file) {
  mark('preload');
  const distRoot = main.slice(0, main.indexOf('/dist/') + '/dist/'.length);
  const repoRoot = distRoot.slice(0, -'dist/'.length);
  const loader = Module as unknown as {
    _load: (request: string, parent: unknown, isMain: boolean) => Exports;
    _resolveFilename: (request: string, parent: unknown, isMain: boolean) => string;
  };
  const load = loader._load;
  loader._load = function (request, parent, isMain) {
    const m = load.call(this, request, parent, isMain);
    const f = loader._resolveFilename(request, parent, isMain);
    const key = f.startsWith(distRoot)
      ? f.slice(distRoot.length)
      : f.startsWith(repoRoot)
        ? f.slice(repoRoot.length)
        : '';
    const patch = patches[key];
    if (patch) {
      delete patches[key];
      patch(m);
    }
    return m;
  };
}
