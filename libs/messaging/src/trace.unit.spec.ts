import { currentTrace, formatTraceparent, nextSpan, parseTraceparent, withTrace } from './trace';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

describe('trace context', () => {
  it('starts a new trace without a parent, its ids fixed once drawn', () => {
    const span = nextSpan(undefined);
    const header = formatTraceparent(span);
    expect(header).toMatch(TRACEPARENT);
    expect(formatTraceparent(span)).toBe(header);
    expect(span.flags).toBe('01');
    expect(formatTraceparent(nextSpan(undefined))).not.toBe(header);
  });

  it("continues the parent's trace and flags with a span of its own", () => {
    const parent = parseTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00')!;
    const child = nextSpan(parent);
    expect(child.traceId).toBe(parent.traceId);
    expect(child.flags).toBe('00');
    expect(child.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(child.spanId).not.toBe(parent.spanId);
    expect(child.spanId).toBe(child.spanId);
  });

  it('gives spans started inside a trace that trace, also a trace whose ids were not read yet', () => {
    const root = nextSpan(undefined);
    const [a, b] = withTrace(root, () => [nextSpan(), nextSpan(currentTrace())]);
    expect(a.traceId).toBe(root.traceId);
    expect(b.traceId).toBe(root.traceId);
    expect(a.spanId).not.toBe(b.spanId);
    expect(currentTrace()).toBeUndefined();
  });

  it('ignores malformed and all-zero trace parents', () => {
    expect(parseTraceparent('00-xyz-b7ad6b7169203331-01')).toBeUndefined();
    expect(parseTraceparent(`00-${'0'.repeat(32)}-b7ad6b7169203331-01`)).toBeUndefined();
    expect(parseTraceparent(undefined)).toBeUndefined();
  });
});
