import type { JsMsg } from '@nats-io/jetstream';
import { JetStreamApiError } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/nats-core';
import {
  EnvelopeTypes,
  Streams,
  envelope,
  subject as subjects,
  type DeadLetterRecord,
  type Envelope,
} from '@dirigent/contracts';
import type { NatsClient } from './connection';

function headerMap(h: MsgHdrs | undefined): Record<string, string[]> | undefined {
  if (!h) return undefined;
  const out: Record<string, string[]> = {};
  for (const [k, v] of h) out[k] = v;
  return out;
}

/**
 * Records a message that will never be handled on `DIRIGENT_DEADLETTER`. The record's id is
 * derived from stream, durable and sequence, so a crash between this publish and the `term`
 * that follows re-publishes the same record, stored once.
 */
export async function publishDeadLetter(
  client: NatsClient,
  source: string,
  m: JsMsg,
  where: { stream: string; durable: string },
  error: string,
): Promise<void> {
  const record: DeadLetterRecord = {
    stream: where.stream,
    durable: where.durable,
    subject: m.subject,
    streamSeq: m.seq,
    deliveries: m.info.deliveryCount,
    error,
    payload: m.string(),
    headers: headerMap(m.headers),
  };
  const env = envelope(EnvelopeTypes.deadLetter, source, record, {
    id: `dlq:${where.stream}:${where.durable}:${m.seq}`,
  });
  await client.js.publish(subjects.deadLetter(where.stream, where.durable), JSON.stringify(env), {
    msgID: env.id,
  });
}

/** The newest dead letters first (at most `limit`). */
export async function listDeadLetters(
  client: NatsClient,
  limit = 100,
): Promise<(DeadLetterRecord & { seq: number })[]> {
  const out: (DeadLetterRecord & { seq: number })[] = [];
  let info;
  try {
    info = await client.jsm.streams.info(Streams.deadLetter);
  } catch (e) {
    if (e instanceof JetStreamApiError) return out;
    throw e;
  }
  const last = info.state.last_seq;
  for (let seq = last; seq >= info.state.first_seq && out.length < limit && seq > 0; seq--) {
    try {
      const sm = await client.jsm.streams.getMessage(Streams.deadLetter, { seq });
      if (!sm) continue;
      out.push({ ...sm.json<Envelope<DeadLetterRecord>>().data, seq });
    } catch {
      // deleted message: skip
    }
  }
  return out;
}
