import { AgentError } from '../../errors.js';
import { ensurePrivateDir, ensurePrivateFileSync } from '../../home/fs.js';
import { isProcessAlive } from '../../state/process.js';
import { quoteShellArg } from '../../tmux/args.js';
import type { PaneInfo, TmuxClient } from '../../tmux/client.js';
import path from 'node:path';

/**
 * Pane identity (docs/reliability.md): an agent is its pane plus the pane's
 * `@macs_agent` tag, and its pane's output reaches one bridge at a time.
 *
 * - A pane tagged for another agent is refused; an untagged one is tagged,
 *   so nothing else takes it later.
 * - The pane's pipe (`pipe-pane`) is ours when `@macs_pipe` names our log;
 *   `@macs_pipe_pid` says which bridge reads it. A pipe into another log is
 *   replaced only when the bridge that opened it is gone; a pipe macs did
 *   not open is never replaced.
 */

export const AGENT_TAG = '@macs_agent';
export const PIPE_TAG = '@macs_pipe';
export const PIPE_OWNER_TAG = '@macs_pipe_pid';

export type PipeDecision =
  | { type: 'keep' }
  | { type: 'open'; replacing?: 'stale' | 'ours' }
  | { type: 'refuse'; message: string; hint: string };

/**
 * Pure: what to do with a pane's pipe. `force` reopens our own pipe (its
 * `cat` still writes to a log that was deleted or replaced).
 */
export function decidePipe(
  info: Pick<PaneInfo, 'id' | 'piped' | 'pipeTag' | 'pipeOwner'>,
  logFile: string,
  options: {
    force?: boolean;
    ownPid: number;
    isAlive: (pid: number) => boolean;
  },
): PipeDecision {
  if (!info.piped) return { type: 'open' };
  if (info.pipeTag === logFile)
    return options.force
      ? { type: 'open', replacing: 'ours' }
      : { type: 'keep' };
  if (!info.pipeTag)
    return {
      type: 'refuse',
      message: `pane ${info.id} is already piped to a program macs did not start (tmux pipe-pane)`,
      hint: `close that pipe first (tmux pipe-pane -t ${info.id}), then start the bridge again`,
    };
  const owner = info.pipeOwner;
  if (owner !== undefined && owner !== options.ownPid && options.isAlive(owner))
    return {
      type: 'refuse',
      message: `pane ${info.id} is already read by another macs bridge (pid ${owner}, writing ${info.pipeTag})`,
      hint: `one bridge per pane: stop that bridge (kill ${owner}) or leave this pane to it`,
    };
  return { type: 'open', replacing: 'stale' };
}

/** Pure: why this pane cannot be agent `agent`'s, if it cannot. */
export function paneTagConflict(
  info: Pick<PaneInfo, 'id' | 'agentTag'>,
  agent: string,
): AgentError | undefined {
  if (!info.agentTag || info.agentTag === agent) return undefined;
  return new AgentError(
    `pane ${info.id} belongs to agent '${info.agentTag}' (${AGENT_TAG}=${info.agentTag}), not '${agent}'`,
    {
      hint: `a pane tagged for one agent is never used for another; give '${agent}' its own pane, or untag this one first (tmux set-option -p -u -t ${info.id} ${AGENT_TAG})`,
    },
  );
}

export interface PaneClaim {
  /** The pid of the program the pane runs (`#{pane_pid}`). */
  pid: number;
  /** The pane was piped now (it was not, or not into our log). */
  newPipe: boolean;
  /** What the new pipe replaced. */
  replaced?: 'stale' | 'ours';
  info: PaneInfo;
}

/**
 * Claim a pane for an agent: check and set its tag, and pipe it into the
 * agent's log unless our pipe is already there. Throws an AgentError when
 * the pane belongs to another agent or another live bridge.
 */
export async function claimPane(options: {
  tmux: TmuxClient;
  pane: string;
  agent: string;
  logFile: string;
  force?: boolean;
}): Promise<PaneClaim> {
  const { tmux, pane, agent, logFile } = options;
  const info = await tmux.paneInfo(pane);
  const conflict = paneTagConflict(info, agent);
  if (conflict) throw conflict;
  const decision = decidePipe(info, logFile, {
    ...(options.force ? { force: true } : {}),
    ownPid: process.pid,
    isAlive: isProcessAlive,
  });
  if (decision.type === 'refuse')
    throw new AgentError(decision.message, { hint: decision.hint });
  if (!info.agentTag) await tmux.setPaneOption(pane, AGENT_TAG, agent);
  if (decision.type === 'open') {
    await ensurePrivateDir(path.dirname(logFile));
    // tmux's `cat >>` follows links: the log must be a file of ours first.
    ensurePrivateFileSync(logFile);
    await tmux.pipePane(pane, `exec cat >> ${quoteShellArg(logFile)}`);
    await tmux.setPaneOption(pane, PIPE_TAG, logFile);
  }
  await tmux.setPaneOption(pane, PIPE_OWNER_TAG, String(process.pid));
  return {
    pid: info.pid,
    newPipe: decision.type === 'open',
    ...(decision.type === 'open' && decision.replacing
      ? { replaced: decision.replacing }
      : {}),
    info,
  };
}

/**
 * Close the pane's pipe when it is ours (into our log, read by this
 * process): capture ends with the bridge. A pane that is gone, or piped by
 * someone else meanwhile, is left alone.
 */
export async function releasePane(options: {
  tmux: TmuxClient;
  pane: string;
  logFile: string;
}): Promise<boolean> {
  const { tmux, pane, logFile } = options;
  const info = await tmux.paneInfo(pane).catch(() => undefined);
  if (!info || info.pipeTag !== logFile) return false;
  if (info.pipeOwner !== undefined && info.pipeOwner !== process.pid)
    return false;
  if (info.piped) await tmux.closePipe(pane);
  await tmux.setPaneOption(pane, PIPE_TAG, '');
  await tmux.setPaneOption(pane, PIPE_OWNER_TAG, '');
  return info.piped;
}
