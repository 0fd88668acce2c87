/**
 * A host's link: a long-lived MCP session over ssh, kept up. A link that
 * ends (the ssh process exits) is noticed at once; a hung one (no traffic:
 * ssh's own keepalive, and an MCP ping every PING_INTERVAL_MS that must be
 * answered within PING_TIMEOUT_MS) within about ten seconds. Either way the
 * session is ended and opened again with backoff. On each new session the
 * answers held for the host are delivered first (held-answers.ts). The
 * host's change notices (change-notice.ts) and the link's own ups and downs
 * are passed on (`onChange`): the holder reads the host then, not on a timer.
 */
import { errorMessage } from '../errors.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import { deliverHeldAnswers } from './held-answers.js';
import { sendHeldAnswer } from './answer.js';
import {
  openHostSession,
  type HostSession,
  type HostTarget,
} from './host-session.js';
import { RemoteError } from './ssh-errors.js';

/**
 * A ping goes out this long after the last one was answered, and must be
 * answered within PING_TIMEOUT_MS: a link that hangs just after a ping is
 * noticed within their sum (9 s; the goal is 10). Each ping wakes the hub's
 * process, its ssh, the host's sshd and macs: at rest with three hosts,
 * pings every 3 s were most of an idle hub's cost (issue 22).
 */
export const PING_INTERVAL_MS = 5_000;
export const PING_TIMEOUT_MS = 4_000;
/** Backoff between reconnects: doubling from the first to the last. */
export const RECONNECT_FIRST_MS = 250;
export const RECONNECT_MAX_MS = 5_000;

/** What the hub knows of a link now (`macs hosts`, `.macs/remote/links.json`). */
export interface LinkState {
  host: string;
  link: 'up' | 'down' | 'connecting';
  /** ISO time of the last change between up and down. */
  since: string;
  version?: string;
  rttMs?: number;
  error?: { kind: string; message: string; hint?: string };
}

export interface HostLink {
  state: () => LinkState;
  /**
   * The live session, or a `RemoteError` saying why there is none (the
   * first connection is waited for).
   */
  session: () => Promise<HostSession>;
  close: () => Promise<void>;
}

export interface HostLinkOptions {
  version: string;
  paths: HomePaths;
  log: Logger;
  onState?: (state: LinkState) => void;
  /**
   * The host's rows may have changed: it sent a change notice, or the link
   * came up or went down (read it again).
   */
  onChange?: () => void;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    // Removed when the time is up: a link pings for days, and a listener
    // left on the signal at each ping would pile up.
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Keep a link to one host until `close()`. */
export function startHostLink(
  target: HostTarget,
  options: HostLinkOptions,
): HostLink {
  const log = options.log.child({ component: 'remote', host: target.name });
  const stop = new AbortController();
  let current: HostSession | undefined;
  let state: LinkState = {
    host: target.name,
    link: 'connecting',
    since: new Date().toISOString(),
  };
  let lastError: RemoteError | undefined;
  let firstDone: () => void = () => undefined;
  const first = new Promise<void>((resolve) => (firstDone = resolve));
  const setState = (next: Omit<LinkState, 'host' | 'since'>) => {
    const changed = next.link !== state.link;
    // A new reason to be down (the drop, then a failed reconnection's) is
    // told too, so every door says the latest; the same one again is not.
    const newReason = next.error?.message !== state.error?.message;
    state = {
      host: target.name,
      since: changed ? new Date().toISOString() : state.since,
      ...next,
    };
    options.onState?.(state);
    firstDone();
    if (changed || newReason) options.onChange?.();
  };

  const deliverHeld = async (session: HostSession) => {
    const held = await deliverHeldAnswers(options.paths, target.name, (a) =>
      sendHeldAnswer(session, a),
    );
    if (held.length > 0) log.info({ held }, 'held answers delivered');
  };

  /** Serve one session until it ends or stops answering pings. */
  const serve = async (session: HostSession): Promise<string> => {
    const ended = session.ended.then((why) => `ended: ${why}`);
    while (!stop.signal.aborted) {
      const started = Date.now();
      const outcome = await Promise.race([
        session.ping(PING_TIMEOUT_MS).then(
          () => 'ok',
          (error: unknown) => `no answer to a ping: ${errorMessage(error)}`,
        ),
        ended,
      ]);
      if (outcome !== 'ok') return outcome;
      setState({
        link: 'up',
        version: session.version,
        rttMs: Date.now() - started,
      });
      // Answers kept while the link was down, and any whose delivery failed
      // since (or was claimed by a short-lived `macs` that ended without
      // it): tried again at each ping, not only when a link comes up.
      await deliverHeld(session);
      const next = await Promise.race([
        sleep(PING_INTERVAL_MS, stop.signal).then(() => 'ok'),
        ended,
      ]);
      if (next !== 'ok') return next;
    }
    return 'closed';
  };

  const loop = async () => {
    let backoff = RECONNECT_FIRST_MS;
    while (!stop.signal.aborted) {
      try {
        const session = await openHostSession(target, {
          version: options.version,
        });
        if (stop.signal.aborted) {
          await session.close();
          break;
        }
        current = session;
        const stopNotices = session.onChange(() => options.onChange?.());
        lastError = undefined;
        backoff = RECONNECT_FIRST_MS;
        setState({ link: 'up', version: session.version });
        log.info({ version: session.version }, 'link up');
        await deliverHeld(session);
        const why = await serve(session);
        stopNotices();
        current = undefined;
        await session.close();
        if (stop.signal.aborted) break;
        lastError = new RemoteError(
          target.name,
          'unreachable',
          `the link dropped (${why})`,
          'macs reconnects by itself',
        );
        log.warn({ why }, 'link down');
      } catch (error) {
        lastError =
          error instanceof RemoteError
            ? error
            : new RemoteError(target.name, 'failed', errorMessage(error), '');
        log.warn({ err: lastError.message }, 'link failed');
      }
      setState({
        link: 'down',
        error: {
          kind: lastError.kind,
          message: lastError.message,
          ...(lastError.hint ? { hint: lastError.hint } : {}),
        },
      });
      await sleep(backoff, stop.signal);
      backoff = Math.min(backoff * 2, RECONNECT_MAX_MS);
    }
  };
  const running = loop();

  return {
    state: () => state,
    session: async () => {
      if (!current && state.link === 'connecting') await first;
      if (current) return current;
      throw (
        lastError ??
        new RemoteError(
          target.name,
          'unreachable',
          'the link is not up yet',
          'wait a moment and try again',
        )
      );
    },
    close: async () => {
      stop.abort();
      firstDone();
      await current?.close();
      await running;
    },
  };
}
