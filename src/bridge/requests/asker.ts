/**
 * Who asked, within a pane: the process group that holds the pane's
 * terminal when a request is read (RequestRecord.asker). A pane is not one
 * program: a shell runs a script, the script an agent; the answer must
 * reach the one that asked (typist/wait-typeable.ts checks it before
 * typing), and never a program started after it ended.
 */
import { describeGroup, readPaneForeground } from '../../tmux/processes.js';
import type { PaneInfo } from '../../tmux/client.js';
import type { RequestAsker } from '../../state/types.js';
import { shellTakesInput } from '../../typist/wait-typeable.js';

/** The pane's foreground group now, as the asker of a request just read. */
export async function readAsker(
  info: Pick<PaneInfo, 'pid' | 'currentCommand'>,
): Promise<RequestAsker | undefined> {
  const now = await readPaneForeground(info.pid);
  if (!now || now.processes.length === 0) return undefined;
  return {
    pgid: now.pgid,
    command: describeGroup(now.processes, now.pgid),
    shell: shellTakesInput(info.currentCommand, now.processes),
  };
}
