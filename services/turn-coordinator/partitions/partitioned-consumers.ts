import { Inject, Injectable, Logger } from '@nestjs/common';
import { PATTERN_EXTRAS_METADATA, PATTERN_METADATA } from '@nestjs/microservices/constants';
import { MikroORM, RequestContext } from '@mikro-orm/postgresql';
import { AckPolicy, DeliverPolicy, JetStreamApiError, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import {
  createValidated,
  Durables,
  parseDiscordEventSubject,
  Subjects,
  TurnComplete,
  type Envelope,
} from '@dirigent/contracts';
import {
  handlerLatency,
  JetStreamContext,
  Messaging,
  runDurableConsumer,
  type DurableEventOptions,
  partitionOf,
  type PartitionOwner,
  type RunningConsumer,
} from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { DurableTimers } from '@dirigent/timers';
import { channelInputLimits } from '../application/channel-inbox';
import { ChannelTimerPayload } from '../application/channel-timer-fired';
import { channelSubject } from '../application/channels';
import type { TurnCoordinatorConfig } from '../config';
import { ChannelCommitsHandler } from '../handlers/channel-commits.handler';
import { ChannelInputsHandler } from '../handlers/channel-inputs.handler';

/** Which partitions this replica serves; every channel when the coordinator is not partitioned. */
@Injectable()
export class PartitionOwnership {
  readonly partitions: number;
  private readonly owned = new Set<number>();

  constructor(@Inject(SERVICE_CONFIG) config: TurnCoordinatorConfig) {
    this.partitions = config.DIRIGENT_COORDINATOR_PARTITIONS;
  }

  get enabled(): boolean {
    return this.partitions > 0;
  }

  /** The partition of a channel; 0 when the channel is unknown (one replica handles it). */
  partitionOf(channelId: unknown): number {
    return typeof channelId === 'string' && channelId !== '' && this.enabled
      ? partitionOf(channelId, this.partitions)
      : 0;
  }

  ownsChannel(channelId: unknown): boolean {
    return !this.enabled || this.owned.has(this.partitionOf(channelId));
  }

  set(k: number, owned: boolean): void {
    if (owned) this.owned.add(k);
    else this.owned.delete(k);
  }
}

type Handler = (data: unknown, ctx: JetStreamContext) => unknown;

/** One of the coordinator's channel consumers, as its handler method declares it. */
interface Route {
  name: string;
  extras: DurableEventOptions;
  pattern: string;
  /**
   * The channel a delivery belongs to (undefined: not known, partition 0), read before the
   * body is decoded: from the subject where it names the channel.
   */
  channelOf(m: JsMsg): unknown;
  handle(env: Envelope, ctx: JetStreamContext): unknown;
}

const COMPLETE_CHANNEL_TOKEN = Subjects.turn.completePrefix.split('.').length;

/** The `channelId` of a body, or undefined when it is unreadable (handled in partition 0). */
function channelInBody(m: JsMsg): unknown {
  try {
    return (m.json<{ data?: { channelId?: unknown } } | null>()?.data ?? null)?.channelId;
  } catch {
    return undefined;
  }
}

const CONSUMER_NOT_FOUND = 10014;

function declared(method: Handler): { pattern: string; extras: DurableEventOptions } {
  const patterns = Reflect.getMetadata(PATTERN_METADATA, method) as string[] | undefined;
  const extras = Reflect.getMetadata(PATTERN_EXTRAS_METADATA, method) as
    | DurableEventOptions
    | undefined;
  if (!patterns?.[0] || !extras?.durable) throw new Error(`${method.name} is no durable handler`);
  return { pattern: patterns[0], extras };
}

/**
 * The channel consumers of a partitioned coordinator (DIRIGENT_COORDINATOR_PARTITIONS > 0):
 * for each partition it holds a lease on, a replica runs one durable per channel consumer,
 * named `<durable>-p<k>of<N>` (the reactor first, as in the single-replica module), each
 * reading the whole stream and handling only the channels of its partition (the others are
 * acknowledged untouched, before their body is decoded: the partition is computed from the
 * channel id in the subject, so publishers and the NATS server need no mapping). The handler methods, their options and their per-channel
 * inbox are the ones `@EventPattern` uses in a single replica. A durable's position belongs
 * to its partition, so a replica that takes a partition over resumes exactly where the
 * previous holder stopped, messages it left unacknowledged included.
 */
@Injectable()
export class PartitionedConsumers implements PartitionOwner {
  private readonly log = new Logger('partitions');
  private readonly running = new Map<number, RunningConsumer[]>();
  /** Work one replica does for all (the read models): runs where partition 0 is served. */
  private singleton?: { start(): Promise<void>; stop(): Promise<void> };
  /** Partitions whose lease was lost while stopping: nothing more of them is handled. */
  private readonly fenced = new Set<number>();
  private readonly routes: Route[];

  constructor(
    private readonly messaging: Messaging,
    private readonly orm: MikroORM,
    private readonly ownership: PartitionOwnership,
    private readonly timers: DurableTimers,
    @Inject(SERVICE_CONFIG) private readonly config: TurnCoordinatorConfig,
    commits: ChannelCommitsHandler,
    inputs: ChannelInputsHandler,
  ) {
    const route = (
      method: Handler,
      channelOf: Route['channelOf'],
      handle: Route['handle'],
    ): Route => ({ name: method.name, ...declared(method), channelOf, handle });
    const channelPrefix = channelSubject('');
    this.routes = [
      route(
        commits.commit as Handler,
        (m) => m.subject.slice(channelPrefix.length),
        (env, ctx) => commits.commit(env.data, ctx),
      ),
      route(
        inputs.discordEvent as Handler,
        (m) => {
          const s = parseDiscordEventSubject(m.subject);
          return s && 'channelId' in s ? s.channelId : undefined;
        },
        (env, ctx) => inputs.discordEvent(env.data as Record<string, unknown>, ctx),
      ),
      // Turn completions (`subject.turnComplete(channelId)`): a completion whose body names
      // another channel is still handled once, by the replica serving the subject's channel.
      route(
        inputs.turnComplete as Handler,
        (m) => m.subject.split('.')[COMPLETE_CHANNEL_TOKEN],
        (env, ctx) => inputs.turnComplete(createValidated(TurnComplete, env.data), ctx),
      ),
      // Timer subjects do not name the channel: the body is read (timers fire seldom).
      route(inputs.timer as Handler, channelInBody, (env) =>
        inputs.timer(createValidated(ChannelTimerPayload, env.data)),
      ),
    ];
  }

  /** Runs `work` on whichever replica serves partition 0 (started and stopped with it). */
  withPartitionZero(work: { start(): Promise<void>; stop(): Promise<void> }): void {
    this.singleton = work;
  }

  /** Durable names of partition `k` (for tests and clean-up). */
  durables(k: number): string[] {
    return this.routes.map((r) => this.spec(r, k).durable);
  }

  private spec(r: Route, k: number): DurableEventOptions {
    const n = this.config.DIRIGENT_COORDINATOR_CONCURRENCY;
    return {
      ...r.extras,
      durable: `${r.extras.durable}-p${k}of${this.ownership.partitions}`,
      filterSubject: r.extras.filterSubject ?? r.pattern,
      // The channel inputs are capped per channel by the inbox, the reactor by its consumer.
      ...(r.extras.durable === Durables.coordinatorReactor
        ? { concurrency: n, maxAckPending: n * 4 }
        : channelInputLimits(n)),
    };
  }

  async acquire(k: number): Promise<void> {
    if (this.running.has(k)) return;
    const started: RunningConsumer[] = [];
    this.running.set(k, started);
    this.ownership.set(k, true);
    for (const r of this.routes) {
      const spec = this.spec(r, k);
      await this.createAtFloor(spec);
      started.push(
        await runDurableConsumer(
          this.messaging.client,
          this.messaging.source,
          spec,
          (env, m) => this.handle(r, k, spec, env, m),
          {
            info: (o, msg) => this.log.log({ ...o, msg }),
            warn: (o, msg) => this.log.warn({ ...o, msg }),
            error: (o, msg) => this.log.error({ ...o, msg }),
          },
          // Another partition's message: acknowledged before it is decoded or validated.
          (m) => this.ownership.partitionOf(r.channelOf(m)) !== k,
        ),
      );
    }
    this.timers.rearm();
    if (k === 0) await this.singleton?.start();
  }

  async release(k: number, lost = false): Promise<void> {
    const consumers = this.running.get(k);
    this.running.delete(k);
    this.ownership.set(k, false);
    this.timers.rearm();
    if (lost) this.fenced.add(k);
    if (k === 0) await this.singleton?.stop().catch(() => undefined);
    try {
      // Each stop waits for the handlers it has running and the messages already received.
      if (consumers) await Promise.all(consumers.map((c) => c.stop()));
    } finally {
      this.fenced.delete(k);
    }
  }

  private async handle(
    r: Route,
    k: number,
    spec: DurableEventOptions,
    env: Envelope,
    m: JsMsg,
  ): Promise<void> {
    // Not acknowledged: it goes back to the stream for the replica that holds the lease now.
    if (this.fenced.has(k)) throw new Error(`partition ${k} lease lost`);
    const started = process.hrtime.bigint();
    let outcome = 'error';
    try {
      const call = () => r.handle(env, new JetStreamContext([m, env, spec]));
      // A consumer that touches no database (the reactor: `around: false`) gets no ORM context.
      if ((r.extras as { around?: boolean }).around === false) await call();
      else await RequestContext.create(this.orm.em, call);
      outcome = 'ok';
    } finally {
      handlerLatency.observe(
        { kind: 'consumer', name: r.extras.durable, outcome },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    }
  }

  /**
   * A partition's durable that does not exist yet starts where the consumers of the same
   * input left off (the single-replica durable, or those of another partition count): the
   * lowest acknowledged position among them, so nothing they had not finished is skipped.
   * With none of them, it reads the whole stream, as the single-replica durable does.
   */
  private async createAtFloor(spec: DurableEventOptions): Promise<void> {
    const jsm = this.messaging.client.jsm;
    try {
      await jsm.consumers.info(spec.stream, spec.durable);
      return;
    } catch (e) {
      if (!(e instanceof JetStreamApiError && e.code === CONSUMER_NOT_FOUND)) throw e;
    }
    const base = spec.durable.replace(/-p\d+of\d+$/, '');
    let floor: number | null = null;
    for await (const c of jsm.consumers.list(spec.stream)) {
      const name = c.config.durable_name ?? c.name;
      if (name !== base && !name.startsWith(`${base}-p`)) continue;
      floor = Math.min(floor ?? Infinity, c.ack_floor.stream_seq);
    }
    if (floor === null) return; // ensureDurable creates it, from the start of the stream.
    try {
      await jsm.consumers.add(spec.stream, {
        durable_name: spec.durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: floor + 1,
        ack_wait: nanos(spec.ackWaitMs),
        max_deliver: spec.maxDeliver + 1,
        max_ack_pending: spec.maxAckPending ?? 1000,
        filter_subject: spec.filterSubject,
      });
    } catch (e) {
      // Another replica created it in between.
      if (!(e instanceof JetStreamApiError)) throw e;
    }
  }
}
