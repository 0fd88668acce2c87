import { existsSync } from 'node:fs';
import { open, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { ensurePrivateDir, FILE_MODE, writeFileAtomic } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';

/**
 * Controls a person sets from outside the bridge (the status view). The
 * bridge is the only writer of its state file, so another process never
 * edits it: it leaves a file in `.macs/control/` that the bridge reads.
 *
 * - `.macs/control/<agent>.paused`: delivery to the agent is paused; answers
 *   wait (they are kept) until the file is removed.
 */
export function controlDir(paths: HomePaths): string {
  return path.join(paths.runtime, 'control');
}

export function pauseFilePath(paths: HomePaths, agent: string): string {
  return path.join(controlDir(paths), `${agent}.paused`);
}

/**
 * Is delivery to this agent paused by a person? One `stat`, synchronous, so
 * the delivery loop can ask on every turn without holding anything up.
 */
export function isDeliveryPaused(paths: HomePaths, agent: string): boolean {
  return existsSync(pauseFilePath(paths, agent));
}

/**
 * Why an agent is paused, as its control file says: who paused it
 * (`budget`, or `person` through `macs pause` / the status view), and for a
 * budget the reading that reached it (docs/usage.md). Read back by
 * pause-reason.ts.
 */
export interface PauseNote {
  by: string;
  scope?: 'agent' | 'session';
  percent?: number;
  budget?: { usd?: number; tokens?: number };
  spentTokens?: number;
  spentUsd?: number | null;
}

/**
 * Pause (create the control file, saying why) or resume (remove it)
 * delivery to an agent.
 */
export async function setDeliveryPaused(
  paths: HomePaths,
  agent: string,
  paused: boolean,
  reason: PauseNote = { by: 'person' },
): Promise<void> {
  const file = pauseFilePath(paths, agent);
  if (!paused) {
    await rm(file, { force: true });
    return;
  }
  await ensurePrivateDir(paths.runtime);
  await ensurePrivateDir(controlDir(paths));
  await writeFileAtomic(
    file,
    `${JSON.stringify({ at: new Date().toISOString(), ...reason })}\n`,
  );
}

/** The agents whose delivery is paused by a control file. */
export async function readPausedAgents(paths: HomePaths): Promise<Set<string>> {
  try {
    const names = await readdir(controlDir(paths));
    return new Set(
      names
        .filter((n) => n.endsWith('.paused'))
        .map((n) => n.slice(0, -'.paused'.length)),
    );
  } catch {
    return new Set();
  }
}

/**
 * A pause check for one delivery that also reports, once, that the delivery
 * is being held (so the event log shows why an answer waits).
 */
export function createPauseGate(
  paths: HomePaths,
  agent: string,
  onHeld: (requestId: string) => void,
): (requestId: string) => boolean {
  const held = new Set<string>();
  return (requestId) => {
    const paused = isDeliveryPaused(paths, agent);
    if (paused && !held.has(requestId)) {
      held.add(requestId);
      onHeld(requestId);
    } else if (!paused) held.delete(requestId);
    return paused;
  };
}

/** `.macs/attention/`: one marker per request a person was alerted about. */
export function attentionDir(paths: HomePaths): string {
  return path.join(paths.runtime, 'attention');
}

/**
 * Claim the right to alert a person about a request: true exactly once per
 * request id, across restarts and across several status views (an
 * exclusive create).
 */
export async function claimAttention(
  paths: HomePaths,
  requestId: string,
): Promise<boolean> {
  await ensurePrivateDir(paths.runtime);
  await ensurePrivateDir(attentionDir(paths));
  try {
    const handle = await open(
      path.join(attentionDir(paths), requestId),
      'wx',
      FILE_MODE,
    );
    await handle.close();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Attention markers are kept this long after their request closed. */
export const ATTENTION_KEEP_MS = 3_600_000;

/**
 * Remove the markers of requests no longer open. Only old ones: another
 * status view may have claimed a request this view has not seen yet.
 */
export async function pruneAttention(
  paths: HomePaths,
  openIds: ReadonlySet<string>,
  now = Date.now(),
): Promise<void> {
  let names: string[];
  try {
    names = await readdir(attentionDir(paths));
  } catch {
    return;
  }
  for (const name of names) {
    if (openIds.has(name)) continue;
    const file = path.join(attentionDir(paths), name);
    const info = await stat(file).catch(() => undefined);
    if (info && now - info.mtimeMs > ATTENTION_KEEP_MS)
      await rm(file, { force: true });
  }
}
