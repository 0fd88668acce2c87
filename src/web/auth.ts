/**
 * Who may use `macs web`: the holder of the secret the command printed
 * (traded once for a session cookie), from a page of this server (the
 * `Origin` of a state-changing request or a socket is the server's own),
 * reached by an address, not a name an attacker controls (the `Host` is an
 * IP literal or `localhost`: DNS rebinding cannot pass). Failed attempts are
 * counted per client address; past a limit that address's wrong guesses are
 * refused as too many for a while, but a right secret or a live session is
 * always served: any process of the machine shares the loopback address, and
 * none may lock the person out by guessing (both are 192 random bits, which
 * no rate of guessing finds).
 *
 * Nothing here writes the secret anywhere; it lives in this process only.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** The session cookie's name. */
export const SESSION_COOKIE = 'macs_web';
/** Failed authentications a client address may make per window. */
export const AUTH_FAILURES_MAX = 10;
/** The window failed authentications are counted in, and the refusal after. */
export const AUTH_WINDOW_MS = 60_000;
/** How long a session cookie lasts. */
export const SESSION_TTL_MS = 7 * 24 * 3_600_000;

/** A fresh random secret or session id (URL-safe). */
export function createSecret(): string {
  return randomBytes(24).toString('base64url');
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Whether `given` is `secret`, in time that does not depend on where they differ. */
export function isSecret(secret: string, given: string | undefined): boolean {
  if (typeof given !== 'string' || given.length === 0) return false;
  return timingSafeEqual(digest(secret), digest(given));
}

/** The value of one cookie in a `Cookie` header. */
export function readCookie(
  header: string | undefined,
  name: string,
): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    if (part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** The `Set-Cookie` header of a session. */
export function sessionCookie(id: string): string {
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(SESSION_TTL_MS / 1000)}`;
}

/** The host name of a `Host` header (`[::1]:7717` -> `::1`), lower-case. */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']'));
  const colon = h.lastIndexOf(':');
  return colon >= 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h;
}

/**
 * Whether a `Host` header names this server by address: an IP literal,
 * `localhost`, or one of the names given with `--host-name`. A name an
 * attacker's DNS answers for (rebinding) is none of them.
 */
export function isAllowedHost(
  host: string | undefined,
  names: readonly string[] = [],
): boolean {
  if (!host || /[\s/@\\]/.test(host)) return false;
  const name = hostName(host);
  if (!name) return false;
  return (
    isIP(name) !== 0 ||
    name === 'localhost' ||
    names.some((n) => n.toLowerCase() === name)
  );
}

/**
 * Whether `origin` is this server as the browser reached it (`host` is the
 * request's Host header): a page of another site, or none, is not.
 */
export function isSameOrigin(
  origin: string | undefined,
  host: string | undefined,
): boolean {
  if (!origin || !host) return false;
  return origin.toLowerCase() === `http://${host.toLowerCase()}`;
}

/**
 * What a request's credential is worth: `ok` (the secret, or a live
 * session), `none` (no session cookie shown), `wrong` (counted as a failed
 * attempt), or `limited` (wrong, from an address that failed too often).
 */
export type CredentialCheck = 'ok' | 'none' | 'wrong' | 'limited';

/** Sessions of this server and the count of failed attempts per address. */
export interface WebAuth {
  /** The secret shown by `address` (`/?token=`); a wrong one is counted. */
  checkSecret(
    token: string | undefined,
    address: string,
  ): Exclude<CredentialCheck, 'none'>;
  /** The session cookie of a request from `address`; a wrong one is counted. */
  checkSession(
    cookieHeader: string | undefined,
    address: string,
  ): CredentialCheck;
  /** Whether the request's token is the secret. */
  checkToken(token: string | undefined): boolean;
  /** A new session id for a browser that showed the secret. */
  openSession(): string;
  /** Whether the cookie header carries a live session. */
  hasSession(cookieHeader: string | undefined): boolean;
  /** Whether the cookie header carries some session value (a right or wrong one). */
  showsSession(cookieHeader: string | undefined): boolean;
  /** Count a failed attempt from `address`. */
  fail(address: string): void;
  /** Whether `address` failed too often lately (it is refused until the window ends). */
  isLimited(address: string): boolean;
}

/**
 * Auth state for one server. `onLimited` hears once per window of an
 * address that reached the limit; `now` is for tests.
 */
export function createWebAuth(
  secret: string,
  options: { now?: () => number; onLimited?: (address: string) => void } = {},
): WebAuth {
  const now = options.now ?? Date.now;
  const sessions = new Map<string, number>();
  const failures = new Map<string, { count: number; since: number }>();
  function current(address: string) {
    const entry = failures.get(address);
    if (entry && now() - entry.since >= AUTH_WINDOW_MS) {
      failures.delete(address);
      return undefined;
    }
    return entry;
  }
  const failed = (address: string): 'wrong' | 'limited' => {
    auth.fail(address);
    return auth.isLimited(address) ? 'limited' : 'wrong';
  };
  const auth: WebAuth = {
    checkSecret: (token, address) =>
      isSecret(secret, token) ? 'ok' : failed(address),
    checkSession(header, address) {
      if (auth.hasSession(header)) return 'ok';
      return auth.showsSession(header) ? failed(address) : 'none';
    },
    checkToken: (token) => isSecret(secret, token),
    openSession() {
      const id = createSecret();
      sessions.set(id, now() + SESSION_TTL_MS);
      return id;
    },
    hasSession(header) {
      const id = readCookie(header, SESSION_COOKIE);
      if (!id) return false;
      for (const [known, until] of sessions) {
        if (until <= now()) {
          sessions.delete(known);
          continue;
        }
        if (isSecret(known, id)) return true;
      }
      return false;
    },
    showsSession: (header) => Boolean(readCookie(header, SESSION_COOKIE)),
    fail(address) {
      const entry = current(address) ?? { count: 0, since: now() };
      failures.set(address, entry);
      entry.count += 1;
      if (entry.count === AUTH_FAILURES_MAX) options.onLimited?.(address);
    },
    isLimited: (address) => (current(address)?.count ?? 0) >= AUTH_FAILURES_MAX,
  };
  return auth;
}
