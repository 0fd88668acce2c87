/**
 * Whether a tmux server runs, asked the way every door asks it (the status
 * view, `macs status`, `macs web`, `macs mcp`): a session whose server is
 * gone reads as `server-gone` in each.
 */
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

/** Whether something listens on the unix socket `file` (a quick connect, then closed). */
export function listening(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(file);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
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
  const uid = process.getuid?.();
  return async (socket) => {
    if (
      uid !== undefined &&
      !socket.includes('/') &&
      (await listening(tmuxSocketPath(socket, env, uid)))
    )
      return true;
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
