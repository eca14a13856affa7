import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { Streams, subject, type Envelope, type LearningAdjustedEvent } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { LearningSteps } from '../application/ports';

/**
 * The guild's `learning.adjusted` events read back from the router's event stream (kept
 * 30 days) through an ephemeral consumer filtered to the guild's subject and started at
 * `since`; gone when the read is done.
 */
export class JetStreamLearningSteps extends LearningSteps {
  constructor(private readonly messaging: Messaging) {
    super();
  }

  async since(guildId: string, agentId: string, since: Date, limit: number) {
    const { jsm, js } = this.messaging.client;
    const info = await jsm.consumers.add(Streams.routerEvents, {
      filter_subject: subject.learningAdjusted(guildId),
      deliver_policy: DeliverPolicy.StartTime,
      opt_start_time: since.toISOString(),
      ack_policy: AckPolicy.None,
      mem_storage: true,
      inactive_threshold: nanos(30_000),
    });
    const steps: LearningAdjustedEvent[] = [];
    try {
      const consumer = await js.consumers.get(Streams.routerEvents, info.name);
      // num_pending is exact at creation: each fetch asks for what is there.
      for (let left = info.num_pending; left > 0; ) {
        const batch = await consumer.fetch({ max_messages: Math.min(left, 500), expires: 5000 });
        let got = 0;
        for await (const m of batch) {
          got++;
          const e = m.json<Envelope<LearningAdjustedEvent>>().data;
          if (e.agentId === agentId) steps.push(e);
        }
        if (!got) break;
        left -= got;
      }
    } finally {
      await jsm.consumers.delete(Streams.routerEvents, info.name).catch(() => undefined);
    }
    return steps.slice(-limit);
  }
}
