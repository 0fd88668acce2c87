/**
 * What an agent's own hooks say about its work inside the pane: the
 * subagents it runs and the compactions of its context (docs/hooks.md,
 * docs/status.md). `macs hook` appends one line per happening to
 * `.macs/activity/<agent>.jsonl`; `macs status` (the snapshot) and
 * `macs usage` fold the file into running and finished subagents and a count
 * of compactions.
 *
 * An append-only file, not a rewritten one: Claude Code runs the hooks of
 * subagents started together at the same time, and one `write(2)` per line
 * never interleaves, where a read-modify-write of one file would lose one.
 * Readers skip a torn or unknown line.
 */
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { appendPrivateSync, ensurePrivateDir } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';

/** One happening, as a hook appends it. */
export type ActivityLine =
  | { ts: string; kind: 'subagent-start'; id: string; type: string }
  | { ts: string; kind: 'subagent-stop'; id: string; type: string }
  /** The agent's context was compacted (`trigger`: `manual`, `auto`, or unknown). */
  | { ts: string; kind: 'compacted'; trigger: string }
  /** A new conversation began (not a compaction): earlier subagents are over. */
  | { ts: string; kind: 'session'; source: string };

/** What a hook gives the runner; the runner stamps `ts`. */
export type ActivityInput = ActivityLine extends infer L
  ? L extends ActivityLine
    ? Omit<L, 'ts'>
    : never
  : never;

export interface SubagentRun {
  /** The agent's own id for it (Claude Code's `agent_id`). */
  id: string;
  /** Its kind (Claude Code's `agent_type`: `general-purpose`, `Explore`, a custom agent's name). */
  kind: string;
  startedAt: string | null;
  /** Null while it runs; for one a new conversation ended, when that began. */
  stoppedAt: string | null;
}

export interface ActivitySummary {
  running: SubagentRun[];
  /** Newest first, at most FINISHED_SHOWN. */
  finished: SubagentRun[];
  finishedTotal: number;
  compactions: number;
  lastCompaction: { at: string; trigger: string } | null;
}

/** How many finished subagents a summary lists (all are counted). */
export const FINISHED_SHOWN = 10;
/** The newest part of an activity file read at once. */
export const ACTIVITY_MAX_BYTES = 1024 * 1024;

export function activityPath(paths: HomePaths, agent: string): string {
  return path.join(paths.runtime, 'activity', `${agent}.jsonl`);
}

/** Append happenings, one line each (one write per line). */
export async function appendActivity(
  paths: HomePaths,
  agent: string,
  lines: readonly ActivityLine[],
): Promise<void> {
  if (lines.length === 0) return;
  const file = activityPath(paths, agent);
  await ensurePrivateDir(path.dirname(file));
  for (const line of lines)
    appendPrivateSync(file, `${JSON.stringify(line)}\n`);
}

function isLine(value: unknown): value is ActivityLine {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  if (typeof v.ts !== 'string') return false;
  switch (v.kind) {
    case 'subagent-start':
    case 'subagent-stop':
      return typeof v.id === 'string' && typeof v.type === 'string';
    case 'compacted':
      return typeof v.trigger === 'string';
    case 'session':
      return typeof v.source === 'string';
    default:
      return false;
  }
}

/** Pure: the lines of an activity file's text; torn or unknown lines are skipped. */
export function parseActivity(text: string): ActivityLine[] {
  const lines: ActivityLine[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    try {
      const value: unknown = JSON.parse(raw);
      if (isLine(value)) lines.push(value);
    } catch {
      // a torn line: skipped
    }
  }
  return lines;
}

/**
 * Pure: fold the lines into running and finished subagents and the
 * compactions. A stop without its start is a finished run with no start
 * time; a new conversation (`session`) ends the subagents still running.
 */
export function summarizeActivity(
  lines: readonly ActivityLine[],
): ActivitySummary {
  const running = new Map<string, SubagentRun>();
  const finished: SubagentRun[] = [];
  let compactions = 0;
  let lastCompaction: ActivitySummary['lastCompaction'] = null;
  for (const line of lines) {
    switch (line.kind) {
      case 'subagent-start':
        running.set(line.id, {
          id: line.id,
          kind: line.type || 'unknown',
          startedAt: line.ts,
          stoppedAt: null,
        });
        break;
      case 'subagent-stop': {
        const run = running.get(line.id);
        running.delete(line.id);
        finished.push({
          id: line.id,
          kind: line.type || run?.kind || 'unknown',
          startedAt: run?.startedAt ?? null,
          stoppedAt: line.ts,
        });
        break;
      }
      case 'compacted':
        compactions += 1;
        lastCompaction = { at: line.ts, trigger: line.trigger };
        break;
      case 'session':
        for (const run of running.values())
          finished.push({ ...run, stoppedAt: line.ts });
        running.clear();
        break;
    }
  }
  return {
    running: [...running.values()],
    finished: finished.slice(-FINISHED_SHOWN).reverse(),
    finishedTotal: finished.length,
    compactions,
    lastCompaction,
  };
}

/** The newest ACTIVITY_MAX_BYTES of a file's text; undefined when it is missing. */
async function readTail(file: string, size: number): Promise<string> {
  const start = Math.max(0, size - ACTIVITY_MAX_BYTES);
  const handle = await open(file, 'r');
  let text: string;
  try {
    const buffer = Buffer.alloc(size - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    text = buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
  // Read from the middle: the first (partial) line is not one.
  return start > 0 ? text.slice(text.indexOf('\n') + 1) : text;
}

/** Every line of an agent's activity file (its newest megabyte); [] when none. */
export async function readActivity(
  paths: HomePaths,
  agent: string,
): Promise<ActivityLine[]> {
  const file = activityPath(paths, agent);
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) return [];
  return parseActivity(await readTail(file, info.size));
}

/** Pure: the compactions among the lines, since a time when given. */
export function countCompactions(
  lines: readonly ActivityLine[],
  since?: Date,
): number {
  const from = since?.getTime() ?? Number.NEGATIVE_INFINITY;
  return lines.filter((l) => l.kind === 'compacted' && Date.parse(l.ts) >= from)
    .length;
}

/**
 * A reader of activity summaries that reads a file again only when its size
 * or mtime changed (a live view reads often). Undefined: nothing recorded.
 */
export function createActivityReader(
  paths: HomePaths,
): (agent: string) => Promise<ActivitySummary | undefined> {
  const cache = new Map<
    string,
    { size: number; mtimeMs: number; summary: ActivitySummary }
  >();
  return async (agent) => {
    const file = activityPath(paths, agent);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const cached = cache.get(agent);
    if (cached && cached.size === info.size && cached.mtimeMs === info.mtimeMs)
      return cached.summary;
    const summary = summarizeActivity(
      parseActivity(await readTail(file, info.size)),
    );
    cache.set(agent, { size: info.size, mtimeMs: info.mtimeMs, summary });
    return summary;
  };
}
