/**
 * Ending the programs in a session's panes for `macs stop`: which pane is
 * an agent, the bridge or the status view, and stopping a group of them as
 * a person would: a program with the interrupt key (twice), a shell at its
 * prompt with a hang-up (as closing its terminal does), and kill-pane for
 * those that do not stop within the grace period.
 */
import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { isShellCommand } from '../config/presets/shell.js';
import type { PaneInfo, TmuxClient } from '../tmux/client.js';
import { readForegroundProcesses } from '../tmux/processes.js';
import { buildKillPaneArgs } from '../tmux/session-args.js';
import { shellTakesInput } from '../typist/wait-typeable.js';
import { BRIDGE_WINDOW, STATUS_WINDOW } from './session-layout.js';
import type { SessionRecord } from './record.js';

/** The key that asks a program to stop (SIGINT through the terminal). */
export const INTERRUPT_KEY = 'C-c';
/** How often `macs stop` looks again whether what it ended is gone. */
export const STOP_POLL_MS = 100;

export type PaneEnding = 'exited' | 'hung-up' | 'killed' | 'already-exited';

export interface StoppedPane {
  name: string;
  pane: string;
  ended: PaneEnding;
}

/** A pane of the session, with the agent or window name it is stopped as. */
export interface NamedPane {
  name: string;
  info: PaneInfo;
}

/**
 * Pure: the session's panes by what they are. Agents carry their tag; the
 * bridge and status panes are known by the record or by their window's
 * name (a record may be missing or stale).
 */
export function sortSessionPanes(
  panes: readonly PaneInfo[],
  record: SessionRecord | undefined,
): { agents: NamedPane[]; bridges: NamedPane[]; views: NamedPane[] } {
  const agentPanes = panes
    .filter((p) => p.agentTag)
    .map((info) => ({ name: info.agentTag, info }));
  const windowPanes = panes
    .filter(
      (p) =>
        !p.agentTag &&
        (p.id === record?.panes.bridge ||
          p.id === record?.panes.status ||
          p.windowName === BRIDGE_WINDOW ||
          p.windowName === STATUS_WINDOW),
    )
    .map((info) => ({
      name:
        info.id === record?.panes.status || info.windowName === STATUS_WINDOW
          ? STATUS_WINDOW
          : BRIDGE_WINDOW,
      info,
    }));
  const bridges = windowPanes.filter((p) => p.name === BRIDGE_WINDOW);
  const views = windowPanes.filter((p) => p.name !== BRIDGE_WINDOW);
  return { agents: agentPanes, bridges, views };
}

/** Linux: a process's terminal and group are read from /proc. */
const HAS_PROC = existsSync('/proc/self/stat');

/**
 * Hang up the shell in front of a pane when the program there is a shell
 * at its prompt ({@link shellTakesInput}): SIGHUP to its process group, as
 * closing a terminal does. A shell ignores the interrupt key; at a hang-up
 * it passes the hang-up on to its jobs and exits. Each group is hung up
 * once (`done`); a nested shell's parent is hung up when it is in front
 * again. Says whether the pane's front is a shell that got the hang-up.
 */
export async function hangUpShell(
  info: Pick<PaneInfo, 'pid' | 'currentCommand'>,
  done: Set<number>,
): Promise<boolean> {
  if (info.pid <= 0 || !isShellCommand(info.currentCommand)) return false;
  const foreground = await readForegroundProcesses(info.pid);
  // With /proc, a front that cannot be read is a pane whose program is
  // ending: not a shell to hang up. Without it, tmux's word is taken.
  if (HAS_PROC && !foreground?.length) return false;
  if (!shellTakesInput(info.currentCommand, foreground)) return false;
  // Without /proc: the pane's own process, which leads its group.
  const group = foreground?.[0]?.pgrp ?? info.pid;
  if (done.has(group)) return true;
  try {
    process.kill(-group, 'SIGHUP');
  } catch {
    return false; // gone meanwhile
  }
  done.add(group);
  return true;
}

/**
 * Ask the programs in these panes to stop: a shell at its prompt with a
 * hang-up (`hangUp`, {@link hangUpShell} by default), any other program
 * with the interrupt key, and again halfway through the grace period
 * (several agents want it twice); a shell that comes back to its prompt
 * meanwhile (its command ended at the interrupt) is hung up then. Panes
 * still running at the end of the grace period get `kill-pane`.
 */
export async function stopPanes(
  tmux: TmuxClient,
  panes: readonly NamedPane[],
  graceMs: number,
  hangUp?: (info: PaneInfo) => Promise<boolean>,
): Promise<StoppedPane[]> {
  const groups = new Set<number>();
  const hangUpFront = hangUp ?? ((info: PaneInfo) => hangUpShell(info, groups));
  const results = new Map<string, StoppedPane>();
  const running = panes.filter(({ info, name }) => {
    if (!info.dead) return true;
    results.set(info.id, { name, pane: info.id, ended: 'already-exited' });
    return false;
  });
  const hungUp = new Set<string>();
  /** The pane still runs: hang up the shell in front of it if there is one. */
  const stillRunning = async (pane: string): Promise<boolean> => {
    const info = await tmux.paneInfo(pane).catch(() => undefined);
    if (!info || info.dead) return false;
    if (await hangUpFront(info)) hungUp.add(pane);
    return true;
  };
  const interrupt = (pane: string) =>
    tmux.sendKey(pane, INTERRUPT_KEY).catch(() => undefined);
  await Promise.all(
    running.map(async ({ info }) => {
      if (await hangUpFront(info)) hungUp.add(info.id);
      else await interrupt(info.id);
    }),
  );
  const deadline = Date.now() + graceMs;
  let again = Date.now() + graceMs / 2;
  let waiting = running;
  while (waiting.length > 0 && Date.now() < deadline) {
    await delay(STOP_POLL_MS);
    const still: typeof waiting = [];
    for (const item of waiting) {
      if (await stillRunning(item.info.id)) still.push(item);
      else
        results.set(item.info.id, {
          name: item.name,
          pane: item.info.id,
          ended: hungUp.has(item.info.id) ? 'hung-up' : 'exited',
        });
    }
    waiting = still;
    if (Date.now() >= again) {
      again = Infinity;
      await Promise.all(waiting.map(({ info }) => interrupt(info.id)));
    }
  }
  for (const item of waiting) {
    await tmux.command(buildKillPaneArgs(item.info.id)).catch(() => undefined);
    results.set(item.info.id, {
      name: item.name,
      pane: item.info.id,
      ended: 'killed',
    });
  }
  return panes.map(
    ({ name, info }) =>
      results.get(info.id) ?? { name, pane: info.id, ended: 'killed' },
  );
}
