import type { Request } from 'express';
import { authorized } from './auth';

const req = (remoteAddress: string, authorization?: string) =>
  ({
    socket: { remoteAddress },
    headers: authorization ? { authorization } : {},
  }) as unknown as Request;

describe('authorized', () => {
  it('needs the exact bearer token when one is configured, from anywhere', () => {
    expect(
      authorized(req('10.0.0.5', 'Bearer tok-0123456789abcdef'), ['tok-0123456789abcdef']),
    ).toBe(true);
    expect(
      authorized(req('127.0.0.1', 'Bearer tok-0123456789abcdeX'), ['tok-0123456789abcdef']),
    ).toBe(false);
    expect(authorized(req('127.0.0.1'), ['tok-0123456789abcdef'])).toBe(false);
    expect(
      authorized(req('127.0.0.1', 'Basic tok-0123456789abcdef'), ['tok-0123456789abcdef']),
    ).toBe(false);
  });

  it('serves loopback callers only when no token is configured', () => {
    expect(authorized(req('127.0.0.1'), [undefined])).toBe(true);
    expect(authorized(req('::1'), [])).toBe(true);
    expect(authorized(req('::ffff:127.0.0.1'), [undefined])).toBe(true);
    expect(authorized(req('10.0.0.5', 'Bearer anything'), [undefined])).toBe(false);
  });
});
