/**
 * `.macs/remote/links.json`: the links a long-running hub process holds
 * (its bridge, `macs mcp`), written on each change between up and down, so
 * that one-shot commands (`macs hosts`) can say since when. A file whose
 * writer is gone is ignored.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { ensurePrivateDir, writeFileAtomic } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';
import { isProcessAlive } from '../state/process.js';
import { remoteDir } from './held-answers.js';
import type { LinkState } from './link.js';

const LinkStatesSchema = z.object({
  pid: z.number().int(),
  hosts: z.array(
    z.object({
      host: z.string(),
      link: z.enum(['up', 'down', 'connecting']),
      since: z.string(),
    }),
  ),
});

function linksFile(paths: HomePaths): string {
  return path.join(remoteDir(paths), 'links.json');
}

/** Write the states of this process's links. */
export async function writeLinkStates(
  paths: HomePaths,
  states: readonly LinkState[],
): Promise<void> {
  await ensurePrivateDir(remoteDir(paths));
  await writeFileAtomic(
    linksFile(paths),
    `${JSON.stringify({ pid: process.pid, hosts: states }, null, 2)}\n`,
  );
}

/** The states a live hub process recorded, by host (empty when none runs). */
export async function readLinkStates(
  paths: HomePaths,
): Promise<Map<string, { link: string; since: string }>> {
  const text = await readFile(linksFile(paths), 'utf8').catch(() => '');
  if (!text) return new Map();
  let parsed;
  try {
    parsed = LinkStatesSchema.safeParse(JSON.parse(text));
  } catch {
    return new Map();
  }
  if (!parsed.success || !isProcessAlive(parsed.data.pid)) return new Map();
  return new Map(parsed.data.hosts.map((h) => [h.host, h]));
}
