/**
 * What a soak run costs, per process and per turn: CPU time of each coordinator replica, of
 * the nats-server and of the soak's own agents (from /proc), messages the channel durables
 * delivered (read from the consumers' positions), forwarded check-turns and lease-bucket
 * traffic (seen on core NATS), Postgres transactions of the run's database, and which
 * replica decided how many turns (a grant's channel → its partition → the lease holder).
 */
import { readFileSync } from 'node:fs';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { Streams } from '@dirigent/contracts';
import { partitionOf } from '@dirigent/messaging';

/** Clock ticks of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

/** User + system CPU of a process, in ms (0 when it is gone or not on Linux). */
export function procCpuMs(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

export interface CostInputs {
  nc: NatsConnection;
  jsm: JetStreamManager;
  /** Replica id → its process id (read again at the end: a restarted replica has a new one). */
  pids: () => Map<string, number | undefined>;
  natsPid?: number;
  /** The nats-server's monitoring URL, for messages per replica connection. */
  natsMonitor?: string;
  /** Postgres transactions (commits + rollbacks) of the run's database so far. */
  pgTransactions: () => Promise<number>;
  partitions: number;
  /** Partition → replica id holding its lease (empty when not partitioned). */
  holders: () => Promise<Map<number, string>>;
}

const FORWARD_PREFIX = 'dirigent.internal.turn-coordinator.';

/** The streams the coordinator's channel durables read. */
const CHANNEL_STREAMS = [
  Streams.eventStore,
  Streams.discordEvents,
  Streams.turnComplete,
  Streams.timerFired,
];

export class CostMeter {
  private cpu0 = new Map<string, number>();
  private natsCpu0 = 0;
  private self0 = process.cpuUsage();
  private delivered0 = new Map<string, number>();
  private pg0 = 0;
  private forwarded = 0;
  private leaseMsgs = 0;
  private leaseMoves = 0;
  private readonly leaseHolders = new Map<string, string>();
  private subs: Subscription[] = [];
  private msgs0 = new Map<string, { in: number; out: number }>();
  private measuring = false;
  /** Partition holders, read every second: a grant counts for the replica serving it then. */
  private holders = new Map<number, string>();
  private poll?: NodeJS.Timeout;
  private readonly decided = new Map<string, number>();
  private readonly traffic = new Map<string, number>();
  private granted_ = 0;

  constructor(private readonly i: CostInputs) {}

  async start(): Promise<void> {
    for (const [id, pid] of this.i.pids()) this.cpu0.set(id, procCpuMs(pid));
    this.natsCpu0 = procCpuMs(this.i.natsPid);
    this.self0 = process.cpuUsage();
    this.delivered0 = await this.delivered();
    this.pg0 = await this.i.pgTransactions();
    this.msgs0 = await this.messagesByReplica();
    this.subs = [
      this.i.nc.subscribe('dirigent.internal.turn-coordinator.*.check', {
        callback: () => {
          this.forwarded++;
        },
      }),
      this.i.nc.subscribe('$KV.dirigent_coordinator_leases.>', {
        callback: (_e, m) => {
          this.leaseMsgs++;
          // A partition's lease put by another replica than its last holder: it moved.
          const key = m.subject.split('.').slice(2).join('.');
          if (!key.startsWith('p') || m.data.length === 0) return;
          try {
            const holder = m.json<{ replica?: string }>().replica;
            const last = this.leaseHolders.get(key);
            if (last !== undefined && last !== holder) this.leaseMoves++;
            if (holder) this.leaseHolders.set(key, holder);
          } catch {
            // Not a lease value.
          }
        },
      }),
    ];
    if (process.env.SOAK_TRAFFIC === '1') {
      // Diagnostic: every message on the server by subject class (doubles the server's work).
      this.subs.push(
        this.i.nc.subscribe('>', {
          callback: (_e, m) => {
            const t = m.subject.split('.');
            const n = t[0] === '$JS' ? (t[1] === 'ACK' ? 3 : 6) : t[0] === '$KV' ? 2 : 3;
            const k = t[0].startsWith('_INBOX') ? '_INBOX' : t.slice(0, n).join('.');
            this.traffic.set(k, (this.traffic.get(k) ?? 0) + 1);
          },
        }),
      );
    }
    this.holders = await this.i.holders();
    this.poll = setInterval(() => {
      this.i
        .holders()
        .then((h) => (this.holders = h))
        .catch(() => undefined);
    }, 1000);
    this.measuring = true;
  }

  /** A grant seen during the measured window. */
  granted(channelId: string): void {
    if (!this.measuring) return;
    const owner =
      this.i.partitions > 0
        ? (this.holders.get(partitionOf(channelId, this.i.partitions)) ?? '?')
        : [...this.i.pids().keys()][0];
    this.decided.set(owner, (this.decided.get(owner) ?? 0) + 1);
    this.granted_++;
  }

  /**
   * NATS messages to and from each replica's connection (a replica is known by its
   * forwarded-check subscription), from the server's /connz; empty without monitoring.
   */
  private async messagesByReplica(): Promise<Map<string, { in: number; out: number }>> {
    const out = new Map<string, { in: number; out: number }>();
    if (!this.i.natsMonitor) return out;
    const r = await fetch(`${this.i.natsMonitor}/connz?subs=1&limit=1000`);
    const body = (await r.json()) as {
      connections: {
        name?: string;
        in_msgs: number;
        out_msgs: number;
        subscriptions_list?: string[];
      }[];
    };
    for (const c of body.connections) {
      const sub = c.subscriptions_list?.find((s) => s.startsWith(FORWARD_PREFIX));
      // Unpartitioned, the one replica has no forwarding subscription.
      const single = this.i.partitions === 0 && c.name === 'turn-coordinator';
      const id = sub
        ? sub.slice(FORWARD_PREFIX.length, -'.check'.length)
        : single
          ? [...this.i.pids().keys()][0]
          : undefined;
      if (!id) continue;
      // in_msgs: published by the client; out_msgs: delivered to it.
      out.set(id, { in: c.in_msgs, out: c.out_msgs });
    }
    return out;
  }

  /** Per durable: messages delivered since the start (redeliveries included). */
  private async delivered(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const stream of CHANNEL_STREAMS) {
      for await (const c of this.i.jsm.consumers.list(stream)) {
        // A consumer deleted while the list is read comes back empty (ephemeral readers).
        if (!c?.config) continue;
        const name = c.config.durable_name ?? c.name;
        if (!name.startsWith('turn-coordinator')) continue;
        out.set(`${stream}/${name}`, c.delivered.consumer_seq);
      }
    }
    return out;
  }

  async stop(turns: number, seconds: number): Promise<Record<string, number | string>> {
    this.measuring = false;
    const selfCpu = process.cpuUsage(this.self0);
    const natsCpu = procCpuMs(this.i.natsPid) - this.natsCpu0;
    const replicaCpu = new Map<string, number>();
    for (const [id, pid] of this.i.pids()) {
      replicaCpu.set(id, procCpuMs(pid) - (this.cpu0.get(id) ?? 0));
    }
    const delivered1 = await this.delivered();
    const msgs1 = await this.messagesByReplica();
    const pg = (await this.i.pgTransactions()) - this.pg0;
    for (const s of this.subs) s.unsubscribe();
    for (const [k, n] of [...this.traffic].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
      process.stderr.write(`traffic ${k}: ${(n / Math.max(turns, 1)).toFixed(2)} per turn\n`);
    }
    let deliveries = 0;
    for (const [k, v] of delivered1) deliveries += v - (this.delivered0.get(k) ?? 0);

    clearInterval(this.poll);
    const decided = this.decided;
    const granted = this.granted_;
    const per = (n: number) => (turns > 0 ? Math.round((n / turns) * 100) / 100 : 0);
    const totalCpu = [...replicaCpu.values()].reduce((a, b) => a + b, 0);
    const out: Record<string, number | string> = {
      coordinatorCpuMsPerTurn: per(totalCpu),
      coordinatorCpuS: Math.round(totalCpu / 10) / 100,
      coordinatorCores: Math.round((totalCpu / 1000 / seconds) * 100) / 100,
      natsCpuMsPerTurn: per(natsCpu),
      agentsCpuMsPerTurn: per((selfCpu.user + selfCpu.system) / 1000),
      deliveriesPerTurn: per(deliveries),
      forwardedChecksPerTurn: per(this.forwarded),
      leaseMsgsPerS: Math.round((this.leaseMsgs / seconds) * 10) / 10,
      leaseMoves: this.leaseMoves,
      pgTransactionsPerTurn: per(pg),
      // With a core of its own per replica, the busiest replica's CPU per turn bounds the
      // rate (NATS, Postgres and the agents on other cores).
      coreBoundTurnsPerS:
        turns > 0 ? Math.round(1000 / (Math.max(...replicaCpu.values()) / turns)) : 0,
    };
    for (const [id, ms] of replicaCpu) {
      out[`${id} cpuS`] = Math.round(ms / 10) / 100;
      const m0 = this.msgs0.get(id);
      const m1 = msgs1.get(id);
      if (m0 && m1) {
        out[`${id} natsMsgsInPerTurn`] = per(m1.in - m0.in);
        out[`${id} natsMsgsOutPerTurn`] = per(m1.out - m0.out);
      }
      out[`${id} turnsShare`] =
        granted > 0 ? Math.round(((decided.get(id) ?? 0) / granted) * 100) / 100 : 0;
    }
    return out;
  }
}
