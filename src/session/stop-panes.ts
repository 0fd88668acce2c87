/**
 * Ending the programs in a session's panes for `macs stop`: which pane is
 * an agent, the bridge or the status view, and stopping a group of them as
 * a person would (the interrupt key, twice), with kill-pane for those that
 * do not stop within the grace period.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { PaneInfo, TmuxClient } from '../tmux/client.js';
import { buildKillPaneArgs } from '../tmux/session-args.js';
import { BRIDGE_WINDOW, STATUS_WINDOW } from './layout.js';
import type { SessionRecord } from './record.js';

/** The key that asks a program to stop (SIGINT through the terminal). */
export const INTERRUPT_KEY = 'C-c';
/** How often `macs stop` looks again whether what it ended is gone. */
export const STOP_POLL_MS = 100;

export type PaneEnding = 'exited' | 'killed' | 'already-exited';

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

/**
 * Ask the programs in these panes to stop: the interrupt key, and again
 * halfway through the grace period (several agents want it twice), then
 * `kill-pane` for those still running.
 */
export async function stopPanes(
  tmux: TmuxClient,
  panes: readonly NamedPane[],
  graceMs: number,
): Promise<StoppedPane[]> {
  const results = new Map<string, StoppedPane>();
  const running = panes.filter(({ info, name }) => {
    if (!info.dead) return true;
    results.set(info.id, { name, pane: info.id, ended: 'already-exited' });
    return false;
  });
  const alive = async (pane: string): Promise<boolean> =>
    tmux.paneInfo(pane).then(
      (info) => !info.dead,
      () => false,
    );
  const interrupt = (pane: string) =>
    tmux.sendKey(pane, INTERRUPT_KEY).catch(() => undefined);
  await Promise.all(running.map(({ info }) => interrupt(info.id)));
  const deadline = Date.now() + graceMs;
  let again = Date.now() + graceMs / 2;
  let waiting = running;
  while (waiting.length > 0 && Date.now() < deadline) {
    await delay(STOP_POLL_MS);
    const still: typeof waiting = [];
    for (const item of waiting) {
      if (await alive(item.info.id)) still.push(item);
      else
        results.set(item.info.id, {
          name: item.name,
          pane: item.info.id,
          ended: 'exited',
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
