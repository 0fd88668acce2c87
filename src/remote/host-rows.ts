/**
 * `.macs/remote/rows/<host>.json`: a host's agents and open requests as the
 * hub last read them (host names, times on the hub's clock), written by
 * every read that reached the host, so that a host that goes down stays
 * shown at every door, even one that never saw it up (`macs inbox` run
 * once). Read back through the host-data checks, as anything a host sent.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { ensurePrivateDir, writeFileAtomic } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';
import { isValidAgentName } from '../protocol/ids.js';
import { sameRows } from './fleet-model.js';
import { remoteDir } from './held-answers.js';
import {
  HostAgentSchema,
  HostRequestSchema,
  HostTime,
  parseHostData,
  type HostAgent,
  type HostRequest,
} from './host-data.js';

const KeptRowsSchema = z.object({
  seenAt: HostTime,
  agents: z.array(HostAgentSchema).max(2_000),
  requests: z.array(HostRequestSchema).max(2_000),
});

/** A host's rows as last seen: host names, hub times. */
export interface KeptRows {
  seenAt: string;
  agents: HostAgent[];
  requests: HostRequest[];
}

function rowsFile(paths: HomePaths, host: string): string {
  if (!isValidAgentName(host)) throw new Error(`bad host name '${host}'`);
  return path.join(remoteDir(paths), 'rows', `${host}.json`);
}

/** What this process last wrote per file: a file is written only on a change. */
const written = new Map<string, KeptRows>();

/** Keep a host's rows as read now (written only when they changed). */
export async function keepHostRows(
  paths: HomePaths,
  host: string,
  rows: KeptRows,
): Promise<void> {
  const file = rowsFile(paths, host);
  // The ages move at every read, and the times by the clock offset's
  // jitter (each read measures it again): neither is a change.
  const before = written.get(file);
  if (before && sameRows(before, rows)) return;
  await ensurePrivateDir(path.dirname(file));
  await writeFileAtomic(file, `${JSON.stringify(rows)}\n`);
  written.set(file, rows);
}

/** A host's rows as last kept, or undefined (none, or not as macs writes them). */
export async function readKeptRows(
  paths: HomePaths,
  host: string,
): Promise<KeptRows | undefined> {
  const text = await readFile(rowsFile(paths, host), 'utf8').catch(() => '');
  if (!text) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = parseHostData(KeptRowsSchema, data);
  return parsed.ok ? parsed.value : undefined;
}
