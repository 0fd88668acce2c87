/**
 * Whether a tmux server runs, asked the way every door asks it (the status
 * view, `macs status`, `macs web`, `macs mcp`): a session whose server is
 * gone reads as `server-gone` in each.
 */
import { lstat, unlink } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { createTmuxClient } from './client.js';
import type { RunTmux } from './run.js';

/** Where tmux puts the socket of `-L name` (tmux(1): TMUX_TMPDIR, else /tmp). */
export function tmuxSocketPath(
  name: string,
  env: Readonly<Record<string, string | undefined>>,
  uid: number,
): string {
  const dir = env.TMUX_TMPDIR || '/tmp';
  return path.join(dir, `tmux-${uid}`, name);
}

/** The socket file of `tmux -L <socket>` where tmux puts it by default, if it has one. */
function defaultSocketFile(
  socket: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): { file: string; uid: number } | undefined {
  const uid = process.getuid?.();
  if (!socket || socket.includes('/') || uid === undefined) return undefined;
  return { file: tmuxSocketPath(socket, env, uid), uid };
}

/**
 * Whether the server `tmux -L <socket>` answers on its socket where tmux
 * puts it by default (a quick connect, then closed). False is no verdict:
 * the socket may be elsewhere, so a caller asks tmux then.
 */
export function socketAnswers(
  socket: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<boolean> {
  const where = defaultSocketFile(socket, env);
  if (!where) return Promise.resolve(false);
  return new Promise((resolve) => {
    const connection = connect(where.file);
    connection.once('connect', () => {
      connection.destroy();
      resolve(true);
    });
    connection.once('error', () => resolve(false));
  });
}

/**
 * Remove the socket file of `tmux -L <socket>` once its server has ended
 * (tmux leaves it behind on `kill-server`): only a socket of this user's,
 * where tmux puts it by default, that no server answers on. True when
 * removed.
 */
export async function removeStaleSocket(
  socket: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<boolean> {
  const where = defaultSocketFile(socket, env);
  if (!where) return false;
  try {
    const info = await lstat(where.file);
    if (!info.isSocket() || info.uid !== where.uid) return false;
  } catch {
    return false;
  }
  if (await socketAnswers(socket, env)) return false;
  try {
    await unlink(where.file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the tmux server `tmux -L <socket>` runs, for the snapshot reader
 * (a session whose server is gone reads as `server-gone`); undefined when
 * tmux cannot be asked (not installed, say). Every few seconds in each
 * door: a server that answers on its socket runs, without a process (a
 * `tmux list-sessions` cost about 5 ms of CPU each time); any other answer
 * (no socket where tmux puts it by default, refused) is asked of tmux
 * itself, so a socket found elsewhere never reads as a server gone.
 */
export function probeTmuxServer(
  runTmux: RunTmux,
  env: Readonly<Record<string, string | undefined>> = process.env,
): (socket: string) => Promise<boolean | undefined> {
  return async (socket) => {
    if (await socketAnswers(socket, env)) return true;
    const tmux = createTmuxClient(socket, runTmux);
    try {
      return await tmux.isServerRunning();
    } catch {
      return undefined;
    } finally {
      await tmux.close().catch(() => undefined);
    }
  };
}
