import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { Subjects, type CheckTurnResult } from '@dirigent/contracts';
import { startUnexportedTracing, tracingEnabled } from '@dirigent/messaging';
import { startServiceApp } from '@dirigent/service-kit';
import { TurnCoordinatorService } from '../services/turn-coordinator/turn-coordinator.module';
import { openLoop, startCoordinatorWorld } from './coordinator-world';
import { msSince, percentile, round, type BenchResult } from './stats';

const CHANNELS = 200;
/** Rounds of one second per variant and rate, alternated A B B A … so drift hits both alike. */
const ROUNDS = 10;
const RATES = [200, 1000];

/** Counts the spans ended and drops them: spans are made, nothing is exported. */
class CountingProcessor implements SpanProcessor {
  ended = 0;
  onStart(): void {}
  onEnd(_span: ReadableSpan): void {
    this.ended++;
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

type Variant = 'off' | 'sdk';

/**
 * What tracing costs check-turn, same run: the coordinator in this process with the
 * OpenTelemetry SDK not loaded (`OTEL_EXPORTER_OTLP_ENDPOINT` unset, as deployed without a
 * collector) against the SDK loaded, every handler, request and publish making its span,
 * exported nowhere (a processor that counts and drops them). The two alternate in rounds of
 * one second on the same coordinator, so the ratio of their p50s is the SDK's cost, and the
 * ratio between the off rounds' two halves is the noise it is read against. Off does less
 * than SDK-loaded (no span is made at all), so off within noise of SDK-loaded is off within
 * noise of no tracing code.
 */
export async function benchOtelOverhead(): Promise<BenchResult> {
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    throw new Error('unset OTEL_EXPORTER_OTLP_ENDPOINT: this suite switches tracing itself');
  }
  const world = await startCoordinatorWorld(CHANNELS, async (env) => {
    const { app } = await startServiceApp(TurnCoordinatorService, {
      ...env,
      TURN_COORDINATOR_PORT: '0',
    });
    return { stop: () => app.close(), cpuMs: () => undefined };
  });
  const { nats, guildId, agents, channels } = world;
  const processor = new CountingProcessor();
  let fired = 0;
  let errors = 0;
  const check = async (samples: number[]) => {
    const i = fired++;
    const body = {
      guildId,
      channelId: channels[(i * 7919) % channels.length],
      agentId: agents[i % 2].agentId,
    };
    const started = process.hrtime.bigint();
    const r = await nats.request<CheckTurnResult>(Subjects.turn.check, body);
    samples.push(msSince(started));
    if (!r.ok) errors++;
  };
  const result: BenchResult = { channels: CHANNELS, 'rounds per variant': ROUNDS };
  try {
    await openLoop(200, 400, () => check([])); // warm-up
    for (const rate of RATES) {
      const samples: Record<Variant, number[][]> = { off: [], sdk: [] };
      for (let r = 0; r < ROUNDS * 2; r++) {
        const variant: Variant = [0, 3].includes(r % 4) ? 'off' : 'sdk';
        const tracing = variant === 'sdk' ? await startUnexportedTracing('bench', processor) : null;
        if (tracingEnabled() !== (variant === 'sdk')) throw new Error('tracing did not switch');
        const taken: number[] = [];
        await openLoop(rate, rate, () => check(taken));
        samples[variant].push(taken);
        await tracing?.shutdown();
      }
      const p50 = (rounds: number[][]) => percentile(rounds.flat(), 50);
      const off = p50(samples.off);
      const sdk = p50(samples.sdk);
      const even = p50(samples.off.filter((_, i) => i % 2 === 0));
      const odd = p50(samples.off.filter((_, i) => i % 2 === 1));
      result[`check-turn p50 ms @${rate}/s, SDK not loaded`] = round(off);
      result[`check-turn p50 ms @${rate}/s, SDK loaded, no exporter`] = round(sdk);
      result[`check-turn p50 @${rate}/s, loaded/not loaded`] = round(sdk / off, 2);
      result[`noise @${rate}/s: p50 of the not-loaded rounds, one half/the other`] = round(
        Math.max(even, odd) / Math.min(even, odd),
        2,
      );
    }
    result['spans made while loaded'] = processor.ended;
    result['check-turn errors'] = errors;
    return result;
  } finally {
    await world.stop();
  }
}
