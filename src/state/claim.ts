/**
 * Claims: who hands an answer to an agent. An answer can reach a Claude Code
 * worker two ways: typed into its pane by the bridge, or given to it by its
 * Stop hook as a block reason (no typing). Both run in different processes,
 * so each claims the request first with an exclusive create of
 * `.macs/claims/<requestId>`; only the one that created the file delivers.
 * That makes delivery at most once whichever side is faster.
 *
 * A claim holds who made it. The bridge treats a claim of its own (left by a
 * bridge killed between claiming and typing, before the `delivering` stage
 * was saved) as still its own.
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { createExclusive } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';

export type ClaimOwner = 'bridge' | 'hook';

export interface ClaimRecord {
  requestId: string;
  by: ClaimOwner;
  pid: number;
  at: string;
}

export type ClaimResult =
  { type: 'claimed' } | { type: 'taken'; claim: ClaimRecord | undefined };

export function claimsDir(paths: HomePaths): string {
  return path.join(paths.runtime, 'claims');
}

export function claimPath(paths: HomePaths, requestId: string): string {
  return path.join(claimsDir(paths), requestId);
}

/** Claim a request's delivery; `taken` when someone claimed it first. */
export async function claimRequest(
  paths: HomePaths,
  requestId: string,
  by: ClaimOwner,
  now = new Date(),
): Promise<ClaimResult> {
  const record: ClaimRecord = {
    requestId,
    by,
    pid: process.pid,
    at: now.toISOString(),
  };
  const created = await createExclusive(
    claimPath(paths, requestId),
    `${JSON.stringify(record)}\n`,
  );
  if (created) return { type: 'claimed' };
  return { type: 'taken', claim: await readClaim(paths, requestId) };
}

export async function readClaim(
  paths: HomePaths,
  requestId: string,
): Promise<ClaimRecord | undefined> {
  try {
    const value = JSON.parse(
      await readFile(claimPath(paths, requestId), 'utf8'),
    ) as Partial<ClaimRecord>;
    if (value.by !== 'bridge' && value.by !== 'hook') return undefined;
    return {
      requestId,
      by: value.by,
      pid: typeof value.pid === 'number' ? value.pid : 0,
      at: typeof value.at === 'string' ? value.at : '',
    };
  } catch {
    return undefined;
  }
}

/**
 * Remove claims of requests that are no longer open and are older than
 * `olderThanMs`. Claims are kept a while after a request is archived so a
 * slow hook that read the state before the archive cannot claim it again.
 */
export async function pruneClaims(
  paths: HomePaths,
  open: ReadonlySet<string>,
  olderThanMs: number,
  now = Date.now(),
): Promise<number> {
  let names: string[];
  try {
    names = await readdir(claimsDir(paths));
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (open.has(name) || name.startsWith('.')) continue;
    const file = path.join(claimsDir(paths), name);
    const info = await stat(file).catch(() => undefined);
    if (!info || now - info.mtimeMs < olderThanMs) continue;
    await rm(file, { force: true });
    removed += 1;
  }
  return removed;
}
