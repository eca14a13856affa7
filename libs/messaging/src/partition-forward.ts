import type { NatsConnection, Subscription } from '@nats-io/nats-core';

/** What a replica answers a forwarded request: its result, or that it could not. */
type Forwarded<Res> = { ok: true; data: Res } | { ok: false };

interface ForwardLog {
  warn(entry: Record<string, unknown>): void;
}

/**
 * A request forwarded, over plain NATS request/reply, to the replica whose partition lease
 * covers it (a channel's check-turn, a guild's search), on a subject of that replica's own.
 * The replica answers only what it owns at that moment (`serve`'s `answer` returns null
 * otherwise); an owner that does not answer in time, refuses or fails leaves the asker to
 * answer it itself (`ask` resolves undefined), as a single replica would.
 */
export class PartitionForward<Req, Res> {
  constructor(
    private readonly nc: () => NatsConnection,
    /** The subject a replica answers forwarded requests on. */
    readonly subject: (replicaId: string) => string,
    private readonly timeoutMs: number,
    private readonly log: ForwardLog,
  ) {}

  /** Answers the requests forwarded to `replicaId` until the subscription is closed. */
  serve(replicaId: string, answer: (body: unknown) => Promise<Res | null>): Subscription {
    return this.nc().subscribe(this.subject(replicaId), {
      callback: (_e, m) => {
        void (async () => {
          let reply: Forwarded<Res> = { ok: false };
          try {
            const data = await answer(m.json());
            if (data !== null) reply = { ok: true, data };
          } catch (e) {
            this.log.warn({ err: (e as Error).message, msg: 'forwarded request failed' });
          }
          m.respond(JSON.stringify(reply));
        })();
      },
    });
  }

  /** The holder's answer to `request`; undefined when it refused, failed or did not answer. */
  async ask(holder: string, request: Req): Promise<Res | undefined> {
    try {
      const m = await this.nc().request(this.subject(holder), JSON.stringify(request), {
        timeout: this.timeoutMs,
      });
      const reply = m.json<Forwarded<Res>>();
      if (reply.ok) return reply.data;
    } catch {
      // No responders (it died; its lease is about to move) or too slow: not logged, as
      // every request of its partitions would say so until the lease moves.
    }
    return undefined;
  }
}
