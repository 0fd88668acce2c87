/**
 * Watching a tmux server from a long-running command (a bridge): it ends
 * with a clear error once the server is gone, instead of idling.
 */
import { TmuxError } from '../errors.js';
import type { TmuxClient } from './client.js';
import { socketAnswers } from './probe.js';

/** How often a long-running command checks that its tmux server is still there… */
export const SERVER_CHECK_MS = 1000;
/**
 * …or, with a control-mode connection, only this often: its client exits at
 * once when the server dies, which is checked then (a socket connection a
 * second was the largest part of an idle bridge's CPU, issue 31).
 */
export const SERVER_BACKSTOP_MS = 10_000;

/**
 * Watch the tmux server a long-running command works with: the promise
 * rejects with a TmuxError (exit 3) once the server is gone, so a bridge
 * whose server was killed stops with a clear message instead of idling.
 */
export function watchTmuxServer(
  tmux: TmuxClient,
  options: { backstopMs?: number } = {},
): {
  gone: Promise<never>;
  stop: () => void;
} {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let checking = false;
  /**
   * Checks left at SERVER_CHECK_MS after the connection was lost: its
   * client can exit a moment before the dying server stops answering.
   */
  let soon = 0;
  let offLost: (() => void) | undefined;
  const every = tmux.onControlLost
    ? (options.backstopMs ?? SERVER_BACKSTOP_MS)
    : SERVER_CHECK_MS;
  const gone = new Promise<never>((_, reject) => {
    const check = async () => {
      if (stopped || checking) return;
      checking = true;
      clearTimeout(timer);
      // The server's socket answering is enough (no tmux command a
      // second over the control connection); anything else is asked of
      // tmux, so a socket elsewhere never stops a bridge.
      const running =
        (await socketAnswers(tmux.socket)) ||
        (await tmux.isServerRunning().catch(() => false));
      checking = false;
      if (stopped) return;
      if (!running) {
        offLost?.();
        reject(serverGone(tmux.socket));
        return;
      }
      const wait = soon > 0 ? SERVER_CHECK_MS : every;
      soon = Math.max(0, soon - 1);
      timer = setTimeout(() => void check(), wait);
    };
    offLost = tmux.onControlLost?.(() => {
      soon = 3;
      void check();
    });
    timer = setTimeout(() => void check(), every);
  });
  // A rejection nobody awaits yet must not crash the process.
  gone.catch(() => undefined);
  return {
    gone,
    stop: () => {
      stopped = true;
      offLost?.();
      if (timer) clearTimeout(timer);
    },
  };
}

/** The error of a tmux server that is no longer running. */
function serverGone(socket: string | undefined): TmuxError {
  const where = socket
    ? `tmux server '${socket}' (tmux -L ${socket})`
    : 'the tmux server';
  return new TmuxError(`${where} is no longer running; the bridge stops`, {
    hint: "start the session again (macs start), or the agents' tmux server, then the bridge",
  });
}
