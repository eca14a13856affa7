import {
  SESSION_COOKIE,
  authorize,
  checkLogin,
  parseCookies,
  sessionCookie,
  sessionValue,
} from './auth';

const TOKEN = 'a-control-token-of-some-length';

describe('control page auth', () => {
  it('is disabled without a configured token, whatever the request carries', () => {
    expect(authorize(undefined, { authorization: `Bearer ${TOKEN}` })).toEqual({
      ok: false,
      reason: 'disabled',
    });
    expect(checkLogin(undefined, TOKEN)).toBe(false);
  });

  it('accepts the bearer token and refuses another one', () => {
    expect(authorize(TOKEN, { authorization: `Bearer ${TOKEN}` })).toEqual({ ok: true });
    expect(authorize(TOKEN, { authorization: `bearer ${TOKEN}` })).toEqual({ ok: true });
    expect(authorize(TOKEN, { authorization: 'Bearer nope' })).toEqual({
      ok: false,
      reason: 'wrong',
    });
    expect(authorize(TOKEN, {})).toEqual({ ok: false, reason: 'missing' });
  });

  it('accepts the session cookie, which is not the token itself', () => {
    const value = sessionValue(TOKEN);
    expect(value).not.toContain(TOKEN);
    expect(authorize(TOKEN, { cookie: `x=1; ${SESSION_COOKIE}=${value}` })).toEqual({ ok: true });
    expect(authorize(TOKEN, { cookie: `${SESSION_COOKIE}=${TOKEN}` })).toEqual({
      ok: false,
      reason: 'wrong',
    });
    expect(
      authorize('another-token-another-token', { cookie: `${SESSION_COOKIE}=${value}` }),
    ).toEqual({ ok: false, reason: 'wrong' });
  });

  it('sets an http-only, same-site strict cookie scoped to /dirigent', () => {
    const c = sessionCookie(TOKEN, false);
    expect(c).toContain('HttpOnly');
    expect(c).toContain('SameSite=Strict');
    expect(c).toContain('Path=/dirigent');
    expect(c).not.toContain('Secure');
    expect(sessionCookie(TOKEN, true)).toContain('Secure');
  });

  it('parses cookies and checks a login', () => {
    expect(parseCookies('a=1; b=x%20y; a=2')).toEqual(
      new Map([
        ['a', '1'],
        ['b', 'x y'],
      ]),
    );
    expect(checkLogin(TOKEN, TOKEN)).toBe(true);
    expect(checkLogin(TOKEN, `${TOKEN}x`)).toBe(false);
    expect(checkLogin(TOKEN, 42)).toBe(false);
  });
});
