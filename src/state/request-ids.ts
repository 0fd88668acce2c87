import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { isSafeFileName } from '../protocol/ids.js';
import { createExclusive } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';

/**
 * Request ids are unique across the agents of a home (SPEC §9). An id is
 * `<agent>-<worker's id>`, and agent names may contain `-`: agent `w`
 * asking `1-r` and agent `w-1` asking `r` would both be `w-1-r`. So each id
 * is claimed for its agent with an exclusive create of `.macs/ids/<id>`
 * (holding the agent's name) before a request takes it; an id another agent
 * holds gets a numbered suffix instead (`w-1-r.2`). Claims made by
 * different bridges at the same moment have one winner.
 */

export function requestIdsDir(paths: HomePaths): string {
  return path.join(paths.runtime, 'ids');
}

/** Most suffixes tried before giving up (a flood of colliding ids). */
const MAX_SUFFIX = 1000;

/** The id `candidate` for `agent`, or the first free suffixed one. */
export async function claimRequestId(
  paths: HomePaths,
  agent: string,
  candidate: string,
): Promise<string> {
  for (let n = 1; n <= MAX_SUFFIX; n += 1) {
    const id = n === 1 ? candidate : `${candidate}.${n}`;
    if (!isSafeFileName(id)) break;
    const file = path.join(requestIdsDir(paths), id);
    if (await createExclusive(file, `${agent}\n`)) return id;
    const owner = (await readFile(file, 'utf8').catch(() => '')).trim();
    if (owner === agent) return id;
  }
  throw new Error(`no free request id for ${agent} near ${candidate}`);
}

/** Claims are kept this long; an open request's claim is always kept. */
export const REQUEST_ID_KEEP_MS = 30 * 24 * 3_600_000;

/**
 * Remove the id claims older than REQUEST_ID_KEEP_MS of the agents in
 * `open` (agent → its open request ids) that are not open. Claims of other
 * agents are left alone. One pass over the folder for all of them.
 */
export async function pruneRequestIds(
  paths: HomePaths,
  open: ReadonlyMap<string, ReadonlySet<string>>,
  now = Date.now(),
): Promise<void> {
  let names: string[];
  try {
    names = await readdir(requestIdsDir(paths));
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const file = path.join(requestIdsDir(paths), name);
    const info = await stat(file).catch(() => undefined);
    if (!info || now - info.mtimeMs < REQUEST_ID_KEEP_MS) continue;
    const owner = (await readFile(file, 'utf8').catch(() => '')).trim();
    const ownerOpen = open.get(owner);
    if (ownerOpen && !ownerOpen.has(name)) await rm(file, { force: true });
  }
}

/** How long after a supervisor starts its old claims are pruned. */
export const PRUNE_DELAY_MS = 30_000;

interface PendingPrune {
  paths: HomePaths;
  agents: Map<string, () => ReadonlySet<string>>;
}

const pendingPrunes = new Map<string, PendingPrune>();

/**
 * Prune `agent`'s old claims a while after it starts, off the start's path.
 * The calls of one process for one home within PRUNE_DELAY_MS share one
 * pass over the folder (a bridge starting 128 agents lists it once, not 128
 * times). `open` is asked at the time of the pass. The timer does not keep
 * the process alive.
 */
export function schedulePruneRequestIds(
  paths: HomePaths,
  agent: string,
  open: () => ReadonlySet<string>,
  delayMs = PRUNE_DELAY_MS,
): void {
  const dir = requestIdsDir(paths);
  const pending = pendingPrunes.get(dir);
  if (pending) {
    pending.agents.set(agent, open);
    return;
  }
  const next: PendingPrune = { paths, agents: new Map([[agent, open]]) };
  pendingPrunes.set(dir, next);
  setTimeout(() => {
    pendingPrunes.delete(dir);
    const sets = new Map<string, ReadonlySet<string>>();
    for (const [name, ids] of next.agents) {
      try {
        sets.set(name, ids());
      } catch {
        // That agent's supervisor stopped meanwhile: leave its claims.
      }
    }
    void pruneRequestIds(next.paths, sets).catch(() => undefined);
  }, delayMs).unref();
}
