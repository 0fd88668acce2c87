/**
 * Watching a tmux server from a long-running command (a bridge): it ends
 * with a clear error once the server is gone, instead of idling.
 */
import { TmuxError } from '../errors.js';
import type { TmuxClient } from './client.js';
import { socketAnswers } from './probe.js';

/** How often a long-running command checks that its tmux server is still there. */
export const SERVER_CHECK_MS = 1000;

/**
 * Watch the tmux server a long-running command works with: the promise
 * rejects with a TmuxError (exit 3) once the server is gone, so a bridge
 * whose server was killed stops with a clear message instead of idling.
 */
export function watchTmuxServer(tmux: TmuxClient): {
  gone: Promise<never>;
  stop: () => void;
} {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const gone = new Promise<never>((_, reject) => {
    const check = async () => {
      if (stopped) return;
      // The server's socket answering is enough (no tmux command a
      // second over the control connection); anything else is asked of
      // tmux, so a socket elsewhere never stops a bridge.
      const running =
        (await socketAnswers(tmux.socket)) ||
        (await tmux.isServerRunning().catch(() => false));
      if (stopped) return;
      if (!running) {
        reject(serverGone(tmux.socket));
        return;
      }
      timer = setTimeout(() => void check(), SERVER_CHECK_MS);
    };
    timer = setTimeout(() => void check(), SERVER_CHECK_MS);
  });
  // A rejection nobody awaits yet must not crash the process.
  gone.catch(() => undefined);
  return {
    gone,
    stop: () => {
      stopped = true;
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
