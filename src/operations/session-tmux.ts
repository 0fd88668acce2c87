/**
 * The session's tmux server as it is now: `--tmux-socket` when given, else
 * the socket of `.macs/session.json`, read at each use (a session started,
 * or started again on another server, after the door did is found).
 */
import type { HomePaths } from '../home/paths.js';
import { readSessionRecord } from '../session/record.js';
import type { TmuxClient } from '../tmux/client.js';

/** One client per socket the session was found on, kept until `close()`. */
export interface SessionTmuxClients {
  client: () => Promise<TmuxClient>;
  close: () => Promise<void>;
}

/**
 * The session's tmux clients for a long-lived door (`macs web`): each socket
 * opened once with `open` (the door's connection to tmux); an unreadable
 * session record is the default server.
 */
export function createSessionTmuxClients(
  paths: HomePaths,
  socket: string | undefined,
  open: (socket: string | undefined) => TmuxClient,
): SessionTmuxClients {
  const clients = new Map<string, TmuxClient>();
  const client = async (): Promise<TmuxClient> => {
    const found =
      socket ?? (await readSessionRecord(paths).catch(() => undefined))?.socket;
    const key = found ?? '';
    let opened = clients.get(key);
    if (!opened) {
      opened = open(found);
      clients.set(key, opened);
    }
    return opened;
  };
  const close = async () => {
    await Promise.all([...clients.values()].map((c) => c.close()));
  };
  return { client, close };
}
