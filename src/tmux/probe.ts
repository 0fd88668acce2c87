/**
 * Whether a tmux server runs, asked the way every door asks it (the status
 * view, `macs status`, `macs web`, `macs mcp`): a session whose server is
 * gone reads as `server-gone` in each.
 */
import { createTmuxClient } from './client.js';
import type { RunTmux } from './run.js';

/**
 * Whether the tmux server `tmux -L <socket>` runs, for the snapshot reader
 * (a session whose server is gone reads as `server-gone`); undefined when
 * tmux cannot be asked (not installed, say).
 */
export function probeTmuxServer(
  runTmux: RunTmux,
): (socket: string) => Promise<boolean | undefined> {
  return async (socket) => {
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
