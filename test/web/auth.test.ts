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
    const auth = createWebAuth('s3cret', () => now);
    for (let i = 0; i < AUTH_FAILURES_MAX - 1; i += 1) auth.fail('10.0.0.1');
    expect(auth.isLimited('10.0.0.1')).toBe(false);
    auth.fail('10.0.0.1');
    expect(auth.isLimited('10.0.0.1')).toBe(true);
    expect(auth.isLimited('10.0.0.2')).toBe(false);
    now += AUTH_WINDOW_MS;
    expect(auth.isLimited('10.0.0.1')).toBe(false);
  });
});
