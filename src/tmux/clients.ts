import { buildListClientsArgs, buildShowMessageArgs } from './args.js';
import type { TmuxClient } from './client.js';
import { FIELD_SEPARATOR } from './formats.js';

/** How long a message stays in the status line of the clients that see it. */
export const MESSAGE_MS = 8000;

export interface ClientInfo {
  name: string;
  pane: string;
}

/** The clients attached to the server (or to one session), control-mode ones left out. */
export async function listClients(
  tmux: TmuxClient,
  session?: string,
): Promise<ClientInfo[]> {
  const out = await tmux.command(
    buildListClientsArgs(
      ['#{client_name}', '#{pane_id}', '#{client_control_mode}'].join(
        FIELD_SEPARATOR,
      ),
      session,
    ),
  );
  return (
    out
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => {
        const [name = '', pane = '', control = ''] =
          line.split(FIELD_SEPARATOR);
        return { name, pane, control: control === '1' };
      })
      // A bridge's control-mode connection is a client too, with no screen.
      .filter((client) => !client.control)
  );
}

/** Show a message on every client attached to a session that holds one of `panes`. */
export async function showMessageNearPanes(
  tmux: TmuxClient,
  panes: readonly string[],
  message: string,
): Promise<number> {
  const sessions = new Set<string>();
  for (const pane of panes) {
    const info = await tmux.paneInfo(pane).catch(() => undefined);
    if (info) sessions.add(info.sessionName);
  }
  let shown = 0;
  for (const session of sessions) {
    for (const client of await listClients(tmux, session)) {
      await tmux.command(
        buildShowMessageArgs(client.name, message, MESSAGE_MS),
      );
      shown += 1;
    }
  }
  return shown;
}
