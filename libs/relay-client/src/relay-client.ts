import { AsyncLocalStorage } from 'node:async_hooks';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { headers, nanos, type MsgHdrs } from '@nats-io/nats-core';
import {
  EnvelopeTypes,
  Streams,
  Subjects,
  envelope,
  isEnvelope,
  subject,
  TRACEPARENT_HEADER,
  validatePayload,
  type CheckTurnResult,
  type Envelope,
  type ErrorCode,
  type Reply,
  type ToolName,
  TurnGranted,
} from '@dirigent/contracts';

/** A refused or failed call: the reply's error code and message. */
export class RelayError extends Error {
  constructor(
    readonly code: ErrorCode | 'UNAVAILABLE' | 'TIMEOUT',
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'RelayError';
  }
}

export interface CheckTurnInput {
  guildId: string;
  channelId: string;
  agentId: string;
  /** The message that woke the agent: the answer waits until the coordinator has seen it. */
  messageId?: string;
}

export interface CompleteTurnInput {
  guildId: string;
  channelId: string;
  agentId: string;
  /** Unique per model run: a re-sent completion with the same id is ignored. */
  runId: string;
  /** The final reply text; `NO_REPLY`, `NO` or blank is an empty turn. */
  text: string;
  /**
   * The `turnId` of the grant or check-turn this run was allowed for: a run that finishes
   * after the agent's turn moved on is then ignored instead of ending a newer turn.
   */
  turnId?: string;
}

export type GrantedEvent = TurnGranted;

export interface OnGrantedOptions {
  /**
   * Durable consumer name (letters, digits, `_`, `-`): a restarted runtime resumes where it
   * stopped, and replicas sharing the name share the grants.
   */
  durable: string;
  /** Only grants for this agent (the others are acknowledged and skipped). */
  agentId?: string;
  /** Only grants in this channel; default all channels. */
  channelId?: string;
  handler: (grant: GrantedEvent, env: Envelope<GrantedEvent>) => Promise<void> | void;
  /**
   * Deliveries of a grant before it is given up (a handler that throws, or a pull lost while
   * a relay's leaf link is cut). Default 5; `-1` is unlimited — what runtimes on a relay use.
   */
  maxDeliver?: number;
  /** How long a delivered grant may stay unacknowledged before it is delivered again. Default 30000. */
  ackWaitMs?: number;
}

export interface GrantSubscription {
  stop(): Promise<void>;
  /** Settles when the subscription ends. */
  readonly done: Promise<void>;
}

export interface RelayClientOptions {
  /** Shown in the NATS server's connection list and used as the envelope `source`. */
  name?: string;
  requestTimeoutMs?: number;
}

const CONSUMER_NOT_FOUND = 10014;

/** JetStream's publish ack (master), or the coordinator's reply (relay). */
type StoredAnswer = Reply<unknown> | { stream?: string; error?: { description?: string } };

function requestFailure(subj: string, e: unknown): Error {
  const text = String((e as Error).message ?? e);
  if (/no responders/i.test(text)) return new RelayError('UNAVAILABLE', `nobody answers ${subj}`);
  if (/timeout/i.test(text)) return new RelayError('TIMEOUT', `${subj} did not answer`);
  return e as Error;
}
const DURABLE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The W3C `traceparent` of the grant whose handler is running, which the handler's calls
 * (check-turn, turn-complete, tools) carry: the turn a completion ends and the grant that
 * follows stay in the trace of the message that started the cycle. A completion without it
 * would begin a trace of its own, and the next speaker's turn (its model call too) with it.
 */
const grantTrace = new AsyncLocalStorage<string>();

/** `h` (new headers when not given) with the running grant's trace context, if there is one. */
function traced(h?: MsgHdrs): MsgHdrs | undefined {
  const parent = grantTrace.getStore();
  if (!parent) return h;
  const out = h ?? headers();
  out.set(TRACEPARENT_HEADER, parent);
  return out;
}

/**
 * What an agent runtime — Dirigent's own or one on another instance joined through a NATS
 * leaf node — needs to take part in turn-taking: ask whether it may speak, report that its
 * turn is over, hear when it is granted a turn, and call the agent tools.
 *
 * @example
 * const relay = await RelayClient.connect('nats://127.0.0.1:4222', { name: 'home-agents' });
 * await relay.onGranted({
 *   durable: 'home-developer-grants',
 *   agentId: 'home-developer',
 *   handler: async (g) => {
 *     const { allowed } = await relay.checkTurn({ ...g, agentId: 'home-developer' });
 *     if (!allowed) return;
 *     const text = await runModel(g.channelId);
 *     await relay.completeTurn({ ...g, agentId: 'home-developer', runId: randomUUID(), text });
 *   },
 * });
 */
export class RelayClient {
  private readonly subscriptions = new Set<GrantSubscription>();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly ownsConnection: boolean,
    private readonly opts: Required<RelayClientOptions>,
  ) {}

  /** Connects to NATS (a local leaf node or the master's server). */
  static async connect(url: string, opts: RelayClientOptions = {}): Promise<RelayClient> {
    const nc = await connect({
      servers: url,
      name: opts.name ?? 'dirigent-relay',
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
    });
    return RelayClient.create(nc, opts, true);
  }

  /** Uses a connection the caller owns (it is not closed by {@link close}). */
  static async using(nc: NatsConnection, opts: RelayClientOptions = {}): Promise<RelayClient> {
    return RelayClient.create(nc, opts, false);
  }

  private static async create(nc: NatsConnection, opts: RelayClientOptions, owns: boolean) {
    const jsm = await jetstreamManager(nc);
    return new RelayClient(nc, jetstream(nc), jsm, owns, {
      name: opts.name ?? 'dirigent-relay',
      requestTimeoutMs: opts.requestTimeoutMs ?? 5000,
    });
  }

  private async request<R>(subj: string, data: unknown): Promise<R> {
    let reply: Reply<R>;
    try {
      const h = traced();
      const msg = await this.nc.request(subj, JSON.stringify(data), {
        timeout: this.opts.requestTimeoutMs,
        ...(h ? { headers: h } : {}),
      });
      reply = msg.json<Reply<R>>();
    } catch (e) {
      throw requestFailure(subj, e);
    }
    if (!reply.ok) throw new RelayError(reply.error.code, reply.error.message, reply.error.details);
    return reply.data;
  }

  /** May `agentId` speak in the channel now? */
  checkTurn(input: CheckTurnInput): Promise<CheckTurnResult> {
    const { guildId, channelId, agentId, messageId } = input;
    return this.request(Subjects.turn.check, {
      guildId,
      channelId,
      agentId,
      ...(messageId ? { messageId } : {}),
    });
  }

  /**
   * Reports the end of the agent's turn (durably; a re-send with the same `runId` is a no-op).
   * On the master the publish is stored by JetStream directly; on a relay the account import
   * hands it to the coordinator, which stores it only for an agent bound to that relay
   * (`FORBIDDEN` otherwise). Either answer means the completion is in the stream.
   */
  async completeTurn(input: CompleteTurnInput): Promise<void> {
    const { guildId, channelId, agentId, runId, text, turnId } = input;
    const env = envelope(
      EnvelopeTypes.turnComplete,
      this.opts.name,
      { guildId, channelId, agentId, runId, text, ...(turnId ? { turnId } : {}) },
      { id: `turn-complete:${channelId}:${runId}` },
    );
    const h = headers();
    h.set('Nats-Msg-Id', env.id);
    const subj = subject.turnComplete(channelId);
    let answer: StoredAnswer;
    try {
      const msg = await this.nc.request(subj, JSON.stringify(env), {
        timeout: this.opts.requestTimeoutMs,
        headers: traced(h),
      });
      answer = msg.json<StoredAnswer>();
    } catch (e) {
      throw requestFailure(subj, e);
    }
    if ('ok' in answer) {
      if (!answer.ok) {
        throw new RelayError(answer.error.code, answer.error.message, answer.error.details);
      }
    } else if (answer.error) {
      throw new RelayError('UNAVAILABLE', `${subj}: ${answer.error.description ?? 'not stored'}`);
    }
  }

  /** Calls an agent tool (`dirigent.tool.<name>`) on behalf of `callerAgentId`. */
  tool<R = unknown>(
    name: ToolName,
    callerAgentId: string,
    data: Record<string, unknown>,
  ): Promise<R> {
    return this.request(subject.tool(name), { ...data, callerAgentId });
  }

  /**
   * Hears grants (`Subjects.turn.grantedAll`) through a durable consumer. A new durable starts with
   * the grants published from now on; an existing one resumes. A grant is acknowledged once
   * the handler returns; when it throws, the grant is redelivered (up to `maxDeliver`).
   */
  async onGranted(opts: OnGrantedOptions): Promise<GrantSubscription> {
    if (!DURABLE.test(opts.durable)) {
      throw new RelayError('BAD_REQUEST', 'durable must be 1-64 letters, digits, _ or -');
    }
    const filter = opts.channelId ? subject.turnGranted(opts.channelId) : Subjects.turn.grantedAll;
    const maxDeliver = opts.maxDeliver ?? 5;
    try {
      await this.jsm.consumers.info(Streams.turnGranted, opts.durable);
    } catch (e) {
      if (!(e instanceof JetStreamApiError && e.code === CONSUMER_NOT_FOUND)) throw e;
      await this.jsm.consumers.add(Streams.turnGranted, {
        durable_name: opts.durable,
        filter_subject: filter,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.New,
        ack_wait: nanos(opts.ackWaitMs ?? 30_000),
        max_deliver: maxDeliver,
      });
    }
    const consumer = await this.js.consumers.get(Streams.turnGranted, opts.durable);
    const messages: ConsumerMessages = await consumer.consume({ max_messages: 16 });
    const done = (async () => {
      for await (const m of messages) {
        let env: Envelope<GrantedEvent>;
        try {
          const parsed = m.json<unknown>();
          if (!isEnvelope(parsed)) throw new Error('not an envelope');
          const checked = validatePayload(TurnGranted, parsed.data);
          if (!checked.ok) throw new Error('invalid grant');
          env = { ...(parsed as Envelope<GrantedEvent>), data: checked.value };
        } catch {
          m.term();
          continue;
        }
        if (opts.agentId && env.data.agentId !== opts.agentId) {
          m.ack();
          continue;
        }
        // The handler runs in the grant's trace: its calls through this client carry it on.
        const parent = m.headers?.get(TRACEPARENT_HEADER);
        try {
          await (parent
            ? grantTrace.run(parent, () => opts.handler(env.data, env))
            : opts.handler(env.data, env));
          m.ack();
        } catch {
          m.nak(Math.min(1000 * m.info.deliveryCount, 10_000));
        }
      }
    })();
    const sub: GrantSubscription = {
      done,
      stop: async () => {
        await messages.close();
        await done.catch(() => undefined);
        this.subscriptions.delete(sub);
      },
    };
    this.subscriptions.add(sub);
    return sub;
  }

  /** Removes a durable created by {@link onGranted} (e.g. a runtime leaving for good). */
  async deleteDurable(durable: string): Promise<void> {
    await this.jsm.consumers.delete(Streams.turnGranted, durable).catch((e) => {
      if (!(e instanceof JetStreamApiError && e.code === CONSUMER_NOT_FOUND)) throw e;
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    if (this.ownsConnection && !this.nc.isClosed()) await this.nc.drain();
  }
}
