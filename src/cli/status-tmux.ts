import { errorMessage } from '../errors.js';
import {
  buildDisplayArgs,
  buildListClientsArgs,
  buildSelectPaneArgs,
  buildSelectWindowArgs,
  buildShowMessageArgs,
  buildSwitchClientArgs,
} from '../tmux/args.js';
import type { TmuxClient } from '../tmux/client.js';
import { FIELD_SEPARATOR } from '../tmux/formats.js';
import type { IntentResult } from '../ui/intents.js';

/** How long the attention message stays in the status line. */
export const ATTENTION_MESSAGE_MS = 8000;

interface ClientInfo {
  name: string;
  pane: string;
}

async function listClients(
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

/**
 * Show an agent's pane: select its window and pane; when `macs status` runs
 * inside tmux on the same server, also move this client there (the pane may
 * be in another session). `env` is where TMUX/TMUX_PANE come from.
 */
export async function jumpToPane(
  tmux: TmuxClient,
  agent: string,
  pane: string | null,
  env: NodeJS.ProcessEnv,
): Promise<IntentResult> {
  if (!pane) return { ok: false, message: `no pane is known for ${agent}` };
  try {
    const info = await tmux.paneInfo(pane);
    await tmux.command(buildSelectWindowArgs(pane));
    await tmux.command(buildSelectPaneArgs(pane));
    const where = `${agent} (${pane}, window ${info.windowName} of session ${info.sessionName})`;
    const ourSocket = env.TMUX?.split(',')[0];
    const ourPane = env.TMUX_PANE;
    if (ourSocket && ourPane) {
      const socket = (
        await tmux.command(buildDisplayArgs(pane, '#{socket_path}'))
      ).trim();
      if (socket === ourSocket) {
        const mine = (await listClients(tmux)).filter(
          (c) => c.pane === ourPane,
        );
        for (const client of mine)
          await tmux.command(buildSwitchClientArgs(client.name, pane));
        if (mine.length > 0) return { ok: true, message: `showing ${where}` };
      }
    }
    const attach = tmux.socket
      ? `tmux -L ${tmux.socket} attach -t ${info.sessionName}`
      : `tmux attach -t ${info.sessionName}`;
    return {
      ok: true,
      message: `selected ${where}; see it with: ${attach}`,
    };
  } catch (error) {
    return {
      ok: false,
      message: `could not jump to ${agent}: ${errorMessage(error)}`,
    };
  }
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
        buildShowMessageArgs(client.name, message, ATTENTION_MESSAGE_MS),
      );
      shown += 1;
    }
  }
  return shown;
}
