import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { natsInboxPrefix } from '@dirigent/contracts';
import { JetStreamPublisher } from './jetstream-publisher';

export interface NatsClientOptions {
  url: string;
  /** Shown in the server's connection list. */
  name: string;
  /** The service's own NATS user and password; without them the connection is anonymous. */
  user?: string;
  pass?: string;
}

/**
 * One NATS connection with its JetStream client and manager. Reconnects forever (a
 * service waits out a NATS restart rather than dying) and drains on close so that
 * in-flight replies and acks are flushed.
 */
export class NatsClient {
  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    /** Where this connection's replies arrive (`_INBOX_<user>` for a service user). */
    readonly inboxPrefix?: string,
  ) {
    this.publisher = new JetStreamPublisher(nc, undefined, inboxPrefix);
  }

  /** Acked JetStream publishes at a fraction of `js.publish`'s cost (one per connection). */
  readonly publisher: JetStreamPublisher;

  static async connect(opts: NatsClientOptions): Promise<NatsClient> {
    // A service user may subscribe only to its own inboxes (libs/contracts
    // nats-permissions.ts): replies, JetStream deliveries and KV watches all go there.
    const inboxPrefix = opts.user ? natsInboxPrefix(opts.user) : undefined;
    const nc = await connect({
      servers: opts.url,
      name: opts.name,
      ...(opts.user ? { user: opts.user, pass: opts.pass ?? '', inboxPrefix } : {}),
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      // Without it every request (and so every JetStream publish and API call) builds an
      // Error up front to carry its caller's stack into a later timeout: 10% of the CPU of a
      // request/reply round trip, and of an event-store append (docs/performance.md).
      noAsyncTraces: true,
    });
    const jsOpts = inboxPrefix ? { watcherPrefix: inboxPrefix } : {};
    const jsm = await jetstreamManager(nc, jsOpts);
    return new NatsClient(nc, jetstream(nc, jsOpts), jsm, inboxPrefix);
  }

  get isConnected(): boolean {
    return !this.nc.isClosed() && !this.nc.isDraining();
  }

  /** Round trip to the server; throws when it does not answer. */
  async ping(timeoutMs = 1000): Promise<number> {
    return Promise.race([
      this.nc.rtt(),
      new Promise<number>((_, reject) =>
        setTimeout(() => reject(new Error('NATS ping timed out')), timeoutMs).unref(),
      ),
    ]);
  }

  async close(): Promise<void> {
    if (this.nc.isClosed()) return;
    try {
      await this.nc.drain();
    } catch {
      await this.nc.close();
    }
  }
}
