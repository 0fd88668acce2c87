import { errorMessage } from '../errors.js';
import {
  buildDisplayArgs,
  buildSelectPaneArgs,
  buildSelectWindowArgs,
  buildSwitchClientArgs,
} from '../tmux/args.js';
import type { TmuxClient } from '../tmux/client.js';
import { listClients } from '../tmux/clients.js';
import type { IntentResult } from './view-intents.js';

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
