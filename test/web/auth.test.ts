import { describe, expect, it } from 'vitest';
import {
  AUTH_FAILURES_MAX,
  AUTH_WINDOW_MS,
  createWebAuth,
  hostName,
  isAllowedHost,
  isSameOrigin,
  readCookie,
  SESSION_COOKIE,
  sessionCookie,
} from '../../src/web/auth.js';

describe('web auth: Host, Origin, the secret and its sessions', () => {
  it.each([
    ['127.0.0.1:7717', true],
    ['localhost:7717', true],
    ['LOCALHOST', true],
    ['[::1]:7717', true],
    ['192.168.1.20:7717', true],
    ['evil.example:7717', false],
    ['127.0.0.1.nip.io:7717', false],
    ['localhost.evil.example', false],
    ['', false],
    [undefined, false],
    ['user@127.0.0.1', false],
    ['127.0.0.1/x', false],
  ])('Host %s allowed: %s', (host, allowed) => {
    expect(isAllowedHost(host)).toBe(allowed);
  });

  it('a name given with --allow-host is allowed, others not', () => {
    expect(isAllowedHost('box.lan:7717', ['box.lan'])).toBe(true);
    expect(isAllowedHost('other.lan:7717', ['box.lan'])).toBe(false);
    expect(hostName('[::1]:80')).toBe('::1');
    expect(hostName('Box.Lan:80')).toBe('box.lan');
  });

  it('only the server itself is the same origin', () => {
    expect(isSameOrigin('http://127.0.0.1:7717', '127.0.0.1:7717')).toBe(true);
    expect(isSameOrigin('http://evil.example', '127.0.0.1:7717')).toBe(false);
    expect(isSameOrigin('http://127.0.0.1:7718', '127.0.0.1:7717')).toBe(false);
    expect(isSameOrigin('null', '127.0.0.1:7717')).toBe(false);
    expect(isSameOrigin(undefined, '127.0.0.1:7717')).toBe(false);
  });

  it('trades the secret for a session; a cookie of no session is refused', () => {
    const auth = createWebAuth('s3cret');
    expect(auth.checkToken('s3cret')).toBe(true);
    expect(auth.checkToken('s3cre')).toBe(false);
    expect(auth.checkToken(undefined)).toBe(false);
    const id = auth.openSession();
    const header = `other=1; ${sessionCookie(id).split(';')[0]}`;
    expect(readCookie(header, SESSION_COOKIE)).toBe(id);
    expect(auth.hasSession(header)).toBe(true);
    expect(auth.hasSession(`${SESSION_COOKIE}=forged`)).toBe(false);
    expect(auth.hasSession(undefined)).toBe(false);
    expect(sessionCookie(id)).toMatch(/HttpOnly; SameSite=Strict/);
  });

  it('refuses an address after too many failures, until the window ends', () => {
    let now = 1_000;
    const auth = createWebAuth('s3cret', { now: () => now });
    for (let i = 0; i < AUTH_FAILURES_MAX - 1; i += 1) auth.fail('10.0.0.1');
    expect(auth.isLimited('10.0.0.1')).toBe(false);
    auth.fail('10.0.0.1');
    expect(auth.isLimited('10.0.0.1')).toBe(true);
    expect(auth.isLimited('10.0.0.2')).toBe(false);
    now += AUTH_WINDOW_MS;
    expect(auth.isLimited('10.0.0.1')).toBe(false);
  });

  // Issue 29: ten wrong tokens from any process of the machine (they share
  // 127.0.0.1) refused the person's own signed-in page for a minute. Past
  // the limit only wrong guesses are refused as too many; a live session
  // and the right secret are served, and the limit is told once.
  it('past the limit, wrong guesses are refused as too many; a session and the secret are not', () => {
    let now = 1_000;
    const limited: string[] = [];
    const auth = createWebAuth('s3cret', {
      now: () => now,
      onLimited: (address) => limited.push(address),
    });
    const session = `${SESSION_COOKIE}=${auth.openSession()}`;
    const verdicts = Array.from({ length: AUTH_FAILURES_MAX + 2 }, (_, i) =>
      auth.checkSecret(`guess${i}`, '127.0.0.1'),
    );
    expect(verdicts.slice(0, AUTH_FAILURES_MAX - 1)).not.toContain('limited');
    expect(verdicts.slice(AUTH_FAILURES_MAX - 1)).toEqual([
      'limited',
      'limited',
      'limited',
    ]);
    expect(limited).toEqual(['127.0.0.1']);
    expect(auth.checkSession(session, '127.0.0.1')).toBe('ok');
    expect(auth.checkSecret('s3cret', '127.0.0.1')).toBe('ok');
    expect(auth.checkSession(`${SESSION_COOKIE}=forged`, '127.0.0.1')).toBe(
      'limited',
    );
    expect(auth.checkSession(undefined, '127.0.0.1')).toBe('none');
    expect(auth.checkSession(`${SESSION_COOKIE}=forged`, '::1')).toBe('wrong');
    now += AUTH_WINDOW_MS;
    expect(auth.checkSecret('guess', '127.0.0.1')).toBe('wrong');
  });
});
