import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-node';

/**
 * A span processor that keeps every span ended, exported nowhere: what a test hands to
 * `startUnexportedTracing` to read the spans a path made.
 */
export class KeptSpans implements SpanProcessor {
  readonly spans: ReadableSpan[] = [];
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.spans.push(span);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
