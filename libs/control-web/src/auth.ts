import { createHmac, timingSafeEqual } from 'node:crypto';

/** Name of the control page's session cookie. */
export const SESSION_COOKIE = 'dirigent_control';

/** Why a request is let in or not; `disabled` means no token is configured at all. */
export type AuthResult = { ok: true } | { ok: false; reason: 'disabled' | 'missing' | 'wrong' };

/**
 * The cookie value for a token: an HMAC of it, so the token itself never sits in the
 * browser and changing `DIRIGENT_CONTROL_TOKEN` ends every session.
 */
export function sessionValue(token: string): string {
  return createHmac('sha256', token).update('dirigent-control-page-session').digest('base64url');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Parses a `Cookie` header into name → value (first occurrence wins). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 1) continue;
    const name = part.slice(0, i).trim();
    if (!out.has(name)) out.set(name, decodeURIComponent(part.slice(i + 1).trim()));
  }
  return out;
}

/**
 * Checks a request's `Authorization: Bearer` header or its session cookie against the
 * configured token.
 *
 * @example
 * authorize('s3cret-token-0123456789', { authorization: 'Bearer s3cret-token-0123456789' });
 * // { ok: true }
 */
export function authorize(
  token: string | undefined,
  headers: { authorization?: string; cookie?: string },
): AuthResult {
  if (!token) return { ok: false, reason: 'disabled' };
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1]?.trim();
  if (bearer !== undefined)
    return same(bearer, token) ? { ok: true } : { ok: false, reason: 'wrong' };
  const cookie = parseCookies(headers.cookie).get(SESSION_COOKIE);
  if (cookie === undefined) return { ok: false, reason: 'missing' };
  return same(cookie, sessionValue(token)) ? { ok: true } : { ok: false, reason: 'wrong' };
}

/** Whether a login form's token is the configured one. */
export function checkLogin(token: string | undefined, given: unknown): boolean {
  return !!token && typeof given === 'string' && same(given, token);
}

/** `Set-Cookie` for a session: http-only, same-site strict, scoped to the page's path. */
export function sessionCookie(token: string, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${sessionValue(token)}`,
    'Path=/dirigent',
    'HttpOnly',
    'SameSite=Strict',
    'Max-Age=43200',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** `Set-Cookie` that ends the session. */
export function clearedCookie(): string {
  return `${SESSION_COOKIE}=; Path=/dirigent; HttpOnly; SameSite=Strict; Max-Age=0`;
}
