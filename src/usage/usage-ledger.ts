/**
 * I/O: what macs keeps of each agent's usage, under `.macs/usage/`:
 *
 * - `<agent>.jsonl`, the ledger: one line per call (or growth of a call)
 *   read from the agent's records, append-only, each naming the record file
 *   and offset it came from; the cursors that say what was read are
 *   rebuilt from it (account.ts), so a restarted bridge counts nothing twice;
 * - `<agent>.json`, the totals per model, rewritten atomically after each
 *   append, which status reads (never the whole ledger).
 *
 * Both are private files of the home (SPEC §4); readers skip a torn or
 * invalid line.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import {
  appendPrivateSync,
  ensurePrivateDir,
  writeFileAtomic,
} from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';
import type { LedgerEntry } from './account.js';
import { addFigures, emptyTotals, type UsageTotals } from './types.js';

/** A ledger read at once is at most this big (the newest part is kept). */
export const LEDGER_MAX_BYTES = 64 * 1024 * 1024;

export function usageDir(paths: HomePaths): string {
  return path.join(paths.runtime, 'usage');
}
export function ledgerPath(paths: HomePaths, agent: string): string {
  return path.join(usageDir(paths), `${agent}.jsonl`);
}
export function totalsPath(paths: HomePaths, agent: string): string {
  return path.join(usageDir(paths), `${agent}.json`);
}

const figure = z.number().int().nonnegative().nullable();

const LedgerEntrySchema = z.object({
  ts: z.string(),
  src: z.string(),
  off: z.number().int().nonnegative(),
  key: z.string().optional(),
  model: z.string().nullable(),
  calls: z.union([z.literal(0), z.literal(1)]),
  inputTokens: figure,
  outputTokens: figure,
  cacheReadTokens: figure,
  cacheWriteTokens: figure,
  cacheWrite1hTokens: z.number().int().positive().optional(),
});

const TotalsSchema = z.object({
  calls: z.number().int().nonnegative(),
  inputTokens: figure,
  outputTokens: figure,
  cacheReadTokens: figure,
  cacheWriteTokens: figure,
  cacheWrite1hTokens: z.number().int().positive().optional(),
});

export const UsageFileSchema = z.object({
  version: z.literal(1),
  agent: z.string(),
  updatedAt: z.string(),
  /** The model of the latest call (null: the agent's record names none). */
  lastModel: z.string().nullable(),
  models: z.array(TotalsSchema.extend({ model: z.string().nullable() })),
});
export type UsageFile = z.infer<typeof UsageFileSchema>;

/** Append entries to an agent's ledger (one write). */
export async function appendLedger(
  paths: HomePaths,
  agent: string,
  entries: readonly LedgerEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  await ensurePrivateDir(paths.runtime);
  await ensurePrivateDir(usageDir(paths));
  appendPrivateSync(
    ledgerPath(paths, agent),
    entries.map((e) => `${JSON.stringify(e)}\n`).join(''),
  );
}

/** Parse ledger text: valid whole lines only (a torn or bad line is skipped). */
export function parseLedger(text: string): LedgerEntry[] {
  const entries: LedgerEntry[] = [];
  const lines = text.split('\n');
  // The part after the last newline is torn (or empty).
  lines.pop();
  for (const line of lines) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = LedgerEntrySchema.safeParse(value);
    if (parsed.success) entries.push(parsed.data);
  }
  return entries;
}

/** An agent's ledger (bounded, never through a link); [] when there is none. */
export async function readLedger(
  paths: HomePaths,
  agent: string,
): Promise<LedgerEntry[]> {
  let handle;
  try {
    handle = await open(
      ledgerPath(paths, agent),
      constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0),
    );
  } catch {
    return [];
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return [];
    const size = Math.min(stats.size, LEDGER_MAX_BYTES);
    const start = stats.size - size;
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, start);
    let text = buffer.subarray(0, bytesRead).toString('utf8');
    // Cut in the middle of a line: drop that part line.
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    return parseLedger(text);
  } finally {
    await handle.close();
  }
}

/** The totals per model of some entries. */
export function totalsOf(
  agent: string,
  entries: readonly LedgerEntry[],
  now: Date,
): UsageFile {
  const byModel = new Map<string | null, UsageTotals>();
  let lastModel: string | null = null;
  for (const entry of entries) {
    byModel.set(
      entry.model,
      addFigures(byModel.get(entry.model) ?? emptyTotals(), entry, entry.calls),
    );
    if (entry.model) lastModel = entry.model;
  }
  return {
    version: 1,
    agent,
    updatedAt: now.toISOString(),
    lastModel,
    models: [...byModel].map(([model, totals]) => ({ model, ...totals })),
  };
}

export async function writeTotals(
  paths: HomePaths,
  file: UsageFile,
): Promise<void> {
  await ensurePrivateDir(paths.runtime);
  await ensurePrivateDir(usageDir(paths));
  await writeFileAtomic(
    totalsPath(paths, file.agent),
    `${JSON.stringify(file)}\n`,
  );
}

/** An agent's totals file; undefined when missing or unreadable. */
export async function readTotals(
  paths: HomePaths,
  agent: string,
): Promise<UsageFile | undefined> {
  let text: string;
  try {
    const handle = await open(
      totalsPath(paths, agent),
      constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0),
    );
    try {
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
  try {
    const parsed = UsageFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Claim a budget level once (an exclusive create of
 * `.macs/usage/budget/<session>.<scope>.<level>`): true the first time, false
 * ever after, across restarts and bridges. `scope` is an agent's name or
 * `_session` (no agent name starts with `_`).
 */
export async function claimBudgetLevel(
  paths: HomePaths,
  session: string,
  scope: string,
  level: number,
): Promise<boolean> {
  const dir = path.join(usageDir(paths), 'budget');
  await ensurePrivateDir(paths.runtime);
  await ensurePrivateDir(usageDir(paths));
  await ensurePrivateDir(dir);
  const name = `${session}.${scope}.${level}`.replace(/[^A-Za-z0-9._-]/g, '_');
  try {
    const handle = await open(
      path.join(dir, name),
      constants.O_WRONLY |
        constants.O_CREAT |
        constants.O_EXCL |
        (constants.O_NOFOLLOW ?? 0),
      0o600,
    );
    await handle.close();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}
