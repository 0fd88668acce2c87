/**
 * Pure: turning what an agent's record says into ledger entries, each call
 * counted once. Per record file (a "source") macs keeps a cursor: how far
 * it has read, and what it has counted so far, so that
 *
 * - an answer written again under the same key (Claude Code's line per
 *   content block, Gemini CLI's message written again as it grows) adds
 *   only what grew (an entry with `calls: 0`), never the answer twice;
 * - a running total (Codex) adds what grew since the last total;
 * - a file read again from its start (rewritten, or the cursor lost) adds
 *   nothing it already counted.
 *
 * The cursor is rebuilt from the ledger itself (usage-ledger.ts), so the two
 * can never disagree.
 */
import type { UsageRecord } from './records.js';
import { FIGURE_KEYS, type UsageFigures } from './types.js';

/** One line of `.macs/usage/<agent>.jsonl`. */
export interface LedgerEntry extends UsageFigures {
  ts: string;
  /** The record file it came from. */
  src: string;
  /** Where in that file the line that told it ends. */
  off: number;
  key?: string;
  model: string | null;
  /** 1 for a new call, 0 for figures an earlier call grew by. */
  calls: 0 | 1;
}

/** What macs has read and counted of one record file. */
export interface SourceCursor {
  /** Bytes read (the end of the last whole line taken). */
  offset: number;
  /** The file's inode when read (another inode: a new file, read again). */
  ino?: number;
  /** The model named last (Codex: by `turn_context`). */
  model: string | null;
  /** Codex: the running total counted so far. */
  total?: UsageFigures;
  /**
   * The file has keyed answers (Codex 0.169's `token_usage_record`): its
   * running totals tell the same calls again and are not counted.
   */
  perCall?: boolean;
  /** Keyed answers counted so far, with their figures. */
  keys: Map<string, UsageFigures>;
}

export function newCursor(): SourceCursor {
  return { offset: 0, model: null, keys: new Map() };
}

const ZERO: UsageFigures = {
  inputTokens: null,
  outputTokens: null,
  cacheReadTokens: null,
  cacheWriteTokens: null,
};

/** What grew from `before` to `after`; undefined when nothing did. */
export function growth(
  after: UsageFigures,
  before: UsageFigures = ZERO,
): UsageFigures | undefined {
  const grown: UsageFigures = { ...ZERO };
  let any = false;
  for (const key of FIGURE_KEYS) {
    const value = after[key];
    if (value === null) continue;
    const delta = Math.max(0, value - (before[key] ?? 0));
    grown[key] = delta;
    if (delta > 0) any = true;
  }
  const hour = Math.max(
    0,
    (after.cacheWrite1hTokens ?? 0) - (before.cacheWrite1hTokens ?? 0),
  );
  if (hour > 0) grown.cacheWrite1hTokens = hour;
  return any ? grown : undefined;
}

/** The larger of two figures, field by field (what a key has reached). */
function reached(a: UsageFigures, b: UsageFigures): UsageFigures {
  const out: UsageFigures = { ...ZERO };
  for (const key of FIGURE_KEYS) {
    const x = a[key];
    const y = b[key];
    out[key] = x === null ? y : y === null ? x : Math.max(x, y);
  }
  const hour = Math.max(a.cacheWrite1hTokens ?? 0, b.cacheWrite1hTokens ?? 0);
  if (hour > 0) out.cacheWrite1hTokens = hour;
  return out;
}

/** Keys remembered per file: enough for any answer still being written. */
const KEYS_KEPT = 2000;

/**
 * Apply a record read at `off` (the end of its line) to a file's cursor:
 * the ledger entry it makes, if any. `now` stands in for a record without
 * a time of its own.
 */
export function accountRecord(
  cursor: SourceCursor,
  src: string,
  record: UsageRecord,
  off: number,
  now: string,
): LedgerEntry | undefined {
  switch (record.type) {
    case 'model':
      cursor.model = record.model;
      return undefined;
    case 'total': {
      if (cursor.perCall) return undefined;
      const grown = growth(record.figures, cursor.total);
      cursor.total = cursor.total
        ? reached(cursor.total, record.figures)
        : record.figures;
      if (!grown) return undefined;
      return {
        ts: record.ts || now,
        src,
        off,
        model: cursor.model,
        calls: 1,
        ...grown,
      };
    }
    case 'call': {
      cursor.perCall = true;
      const before = cursor.keys.get(record.key);
      const grown = growth(record.figures, before);
      cursor.keys.delete(record.key);
      cursor.keys.set(
        record.key,
        before ? reached(before, record.figures) : record.figures,
      );
      while (cursor.keys.size > KEYS_KEPT) {
        const oldest = cursor.keys.keys().next().value;
        if (oldest === undefined) break;
        cursor.keys.delete(oldest);
      }
      if (record.model) cursor.model = record.model;
      if (before && !grown) return undefined;
      return {
        ts: record.ts || now,
        src,
        off,
        key: record.key,
        model: record.model ?? cursor.model,
        calls: before ? 0 : 1,
        ...(grown ?? record.figures),
      };
    }
    default: {
      const never: never = record;
      throw new Error(`unexpected usage record ${JSON.stringify(never)}`);
    }
  }
}

/** Replay a ledger entry into the cursors (rebuilding them at start). */
export function replayEntry(
  cursors: Map<string, SourceCursor>,
  entry: LedgerEntry,
): void {
  const cursor = cursors.get(entry.src) ?? newCursor();
  cursors.set(entry.src, cursor);
  cursor.offset = Math.max(cursor.offset, entry.off);
  if (entry.model) cursor.model = entry.model;
  const figures: UsageFigures = {
    inputTokens: entry.inputTokens,
    outputTokens: entry.outputTokens,
    cacheReadTokens: entry.cacheReadTokens,
    cacheWriteTokens: entry.cacheWriteTokens,
    ...(entry.cacheWrite1hTokens
      ? { cacheWrite1hTokens: entry.cacheWrite1hTokens }
      : {}),
  };
  const add = (base: UsageFigures | undefined): UsageFigures => {
    const out: UsageFigures = { ...ZERO };
    for (const key of FIGURE_KEYS) {
      const a = base?.[key] ?? null;
      const b = figures[key];
      out[key] = a === null && b === null ? null : (a ?? 0) + (b ?? 0);
    }
    const hour =
      (base?.cacheWrite1hTokens ?? 0) + (figures.cacheWrite1hTokens ?? 0);
    if (hour > 0) out.cacheWrite1hTokens = hour;
    return out;
  };
  if (entry.key) {
    cursor.perCall = true;
    cursor.keys.set(entry.key, add(cursor.keys.get(entry.key)));
  } else cursor.total = add(cursor.total);
}
