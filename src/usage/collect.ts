/**
 * I/O: read what an agent's record files gained since last time and turn it
 * into ledger entries (account.ts), moving each file's cursor on.
 */
import {
  accountRecord,
  newCursor,
  type LedgerEntry,
  type SourceCursor,
} from './account.js';
import { readNewLines } from './read-lines.js';
import {
  readClaudeLine,
  readCodexLine,
  readGeminiLine,
  type UsageRecord,
} from './records.js';
import type { UsageSourceKind } from './types.js';

interface Reader {
  /** A cheap test: only lines containing one of these are parsed. */
  needles: readonly string[];
  read: (line: unknown) => UsageRecord | undefined;
}

const READERS: Record<UsageSourceKind, Reader> = {
  claude: { needles: ['"usage"'], read: readClaudeLine },
  codex: {
    needles: ['"token_usage_record"', '"token_count"', '"turn_context"'],
    read: readCodexLine,
  },
  gemini: { needles: ['"tokens"'], read: readGeminiLine },
};

/** The records of whole lines (pure; a line that is not JSON is skipped). */
export function recordsOfLines(
  kind: UsageSourceKind,
  lines: readonly { text: string; end: number }[],
): { record: UsageRecord; end: number }[] {
  const reader = READERS[kind];
  const out: { record: UsageRecord; end: number }[] = [];
  for (const line of lines) {
    if (!reader.needles.some((n) => line.text.includes(n))) continue;
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch {
      continue;
    }
    const record = reader.read(value);
    if (record) out.push({ record, end: line.end });
  }
  return out;
}

/** New entries from these files; `problems` names files that could not be read. */
export async function collectUsage(
  kind: UsageSourceKind,
  files: readonly string[],
  cursors: Map<string, SourceCursor>,
  now: Date,
): Promise<{
  entries: LedgerEntry[];
  problems: { file: string; reason: string }[];
}> {
  const entries: LedgerEntry[] = [];
  const problems: { file: string; reason: string }[] = [];
  for (const file of files) {
    const cursor = cursors.get(file) ?? newCursor();
    const outcome = await readNewLines(file, cursor.offset, cursor.ino);
    if (!outcome.ok) {
      problems.push({ file, reason: outcome.reason });
      continue;
    }
    const { result } = outcome;
    cursors.set(file, cursor);
    for (const { record, end } of recordsOfLines(kind, result.lines)) {
      const entry = accountRecord(cursor, file, record, end, now.toISOString());
      if (entry) entries.push(entry);
    }
    cursor.offset = result.offset;
    cursor.ino = result.ino;
  }
  return { entries, problems };
}
