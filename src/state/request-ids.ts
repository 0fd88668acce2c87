import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { isSafeFileName } from '../protocol/ids.js';
import { createExclusive } from './hook-files.js';
import type { HomePaths } from './paths.js';

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

/** Remove `agent`'s id claims older than REQUEST_ID_KEEP_MS that are not open. */
export async function pruneRequestIds(
  paths: HomePaths,
  agent: string,
  open: ReadonlySet<string>,
  now = Date.now(),
): Promise<void> {
  let names: string[];
  try {
    names = await readdir(requestIdsDir(paths));
  } catch {
    return;
  }
  for (const name of names) {
    if (open.has(name) || name.startsWith('.')) continue;
    const file = path.join(requestIdsDir(paths), name);
    const info = await stat(file).catch(() => undefined);
    if (!info || now - info.mtimeMs < REQUEST_ID_KEEP_MS) continue;
    const owner = (await readFile(file, 'utf8').catch(() => '')).trim();
    if (owner === agent) await rm(file, { force: true });
  }
}
