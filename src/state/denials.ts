/**
 * Denials and appeals (docs/hooks.md#appeals): the files through which the
 * PreToolUse hook and the bridge share what the rules refused.
 *
 * - `.macs/denials/<agent>.json`: the agent's last denials, newest last
 *   (written by its hooks, read by the bridge when the agent appeals). The
 *   hook that denies also tells whether the last few were alike (a worker
 *   trying variants of a refused call: `repeatedDenials`).
 * - `.macs/allowances/<agent>/<fingerprint>.json`: a one-shot allowance the
 *   bridge writes when the controller overturns an appeal; the next
 *   PreToolUse of that very call (same fingerprint) takes it, once.
 */
import { readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { HomePaths } from '../home/paths.js';
import { ensurePrivateDir, writeFileAtomic } from '../home/fs.js';

/** One call the rules refused. */
export interface DenialRecord {
  at: string;
  tool: string;
  /** What it acts on: the command, path or URL. */
  subject: string;
  /** Hash of the tool and its whole input (protocol/approval.ts). */
  fingerprint: string;
  /** The deny rule's name. */
  rule: string;
  /** Claude Code's transcript of the conversation, for an appeal. */
  transcript?: string;
  /** Already reported as part of repeated denials. */
  reported?: boolean;
}

/** How many denials an agent's file keeps. */
export const DENIALS_KEPT = 20;
/** Denials alike in a row that call a person. */
export const REPEATED_DENIALS = 3;

export function denialsPath(paths: HomePaths, agent: string): string {
  return path.join(paths.runtime, 'denials', `${agent}.json`);
}

export function allowancesDir(paths: HomePaths, agent: string): string {
  return path.join(paths.runtime, 'allowances', agent);
}

function isDenial(value: unknown): value is DenialRecord {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return ['at', 'tool', 'subject', 'fingerprint', 'rule'].every(
    (k) => typeof v[k] === 'string',
  );
}

/** The agent's recorded denials, oldest first (none when unreadable). */
export async function readDenials(
  paths: HomePaths,
  agent: string,
): Promise<DenialRecord[]> {
  try {
    const value: unknown = JSON.parse(
      await readFile(denialsPath(paths, agent), 'utf8'),
    );
    const list = (value as { denials?: unknown }).denials;
    return Array.isArray(list) ? list.filter(isDenial) : [];
  } catch {
    return [];
  }
}

/** The words of a command, for comparing two of them. */
function words(subject: string): Set<string> {
  return new Set(
    subject
      .toLowerCase()
      .split(/[\s'"`;|&()<>=]+/)
      .filter((w) => w !== ''),
  );
}

/**
 * Pure: are two denials alike? The same tool, and the same rule or commands
 * that share at least half their words (`rm -rf ~` and `rm -r -f ~/`).
 */
export function similarDenials(a: DenialRecord, b: DenialRecord): boolean {
  if (a.tool !== b.tool) return false;
  if (a.rule === b.rule) return true;
  const x = words(a.subject);
  const y = words(b.subject);
  const shared = [...x].filter((w) => y.has(w)).length;
  const all = new Set([...x, ...y]).size;
  return all > 0 && shared / all >= 0.5;
}

/**
 * Pure: the newest denials when the last REPEATED_DENIALS are alike and none
 * of them was reported yet; else undefined.
 */
export function repeatedDenials(
  denials: readonly DenialRecord[],
): DenialRecord[] | undefined {
  const last = denials.slice(-REPEATED_DENIALS);
  if (last.length < REPEATED_DENIALS) return undefined;
  if (last.some((d) => d.reported)) return undefined;
  const newest = last[last.length - 1];
  if (!newest || !last.every((d) => similarDenials(d, newest)))
    return undefined;
  return last;
}

/**
 * Add a denial to the agent's file. Returns the denials that now repeat
 * (marked reported, so the next report needs three more), if any.
 */
export async function recordDenial(
  paths: HomePaths,
  agent: string,
  denial: DenialRecord,
): Promise<DenialRecord[] | undefined> {
  const list = [...(await readDenials(paths, agent)), { ...denial }].slice(
    -DENIALS_KEPT,
  );
  const repeated = repeatedDenials(list);
  if (repeated) for (const d of repeated) d.reported = true;
  const file = denialsPath(paths, agent);
  await ensurePrivateDir(path.dirname(file));
  await writeFileAtomic(file, `${JSON.stringify({ denials: list })}\n`);
  return repeated;
}

/** An overturned appeal's allowance for one call. */
export interface Allowance {
  fingerprint: string;
  /** The appeal request that won it. */
  appeal: string;
  reason: string;
  at: string;
}

const FINGERPRINT = /^[0-9a-f]{8,64}$/;

/** Let the call with this fingerprint through once (an overturned appeal). */
export async function grantAllowance(
  paths: HomePaths,
  agent: string,
  allowance: Allowance,
): Promise<void> {
  if (!FINGERPRINT.test(allowance.fingerprint))
    throw new Error(`not a call fingerprint: ${allowance.fingerprint}`);
  const dir = allowancesDir(paths, agent);
  await ensurePrivateDir(dir);
  await writeFileAtomic(
    path.join(dir, `${allowance.fingerprint}.json`),
    `${JSON.stringify(allowance)}\n`,
  );
}

/**
 * Take the allowance for this call, if there is one: renamed away first, so
 * of two hooks racing for it exactly one gets it. Undefined: none.
 */
export async function takeAllowance(
  paths: HomePaths,
  agent: string,
  fingerprint: string,
): Promise<Allowance | undefined> {
  if (!FINGERPRINT.test(fingerprint)) return undefined;
  const dir = allowancesDir(paths, agent);
  const file = path.join(dir, `${fingerprint}.json`);
  const taken = path.join(dir, `.${fingerprint}.taken-${process.pid}`);
  try {
    await rename(file, taken);
  } catch {
    return undefined;
  }
  try {
    const value: unknown = JSON.parse(await readFile(taken, 'utf8'));
    const a = value as Partial<Allowance>;
    return {
      fingerprint,
      appeal: typeof a.appeal === 'string' ? a.appeal : 'unknown',
      reason: typeof a.reason === 'string' ? a.reason : '',
      at: typeof a.at === 'string' ? a.at : '',
    };
  } catch {
    return { fingerprint, appeal: 'unknown', reason: '', at: '' };
  } finally {
    await rm(taken, { force: true });
  }
}

/** The allowances waiting for an agent's calls (fingerprints). */
export async function listAllowances(
  paths: HomePaths,
  agent: string,
): Promise<string[]> {
  const names = await readdir(allowancesDir(paths, agent)).catch(() => []);
  return names
    .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
    .map((n) => n.slice(0, -'.json'.length));
}
