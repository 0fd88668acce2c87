import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { isSafeFileName } from '../protocol/ids.js';
import { ensurePrivateDir, fileExists, writeFileAtomic } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';

/** Outbox files larger than this are refused (SPEC §4). */
export const MAX_OUTBOX_BYTES = 1024 * 1024;

export type WriteAnswerResult =
  | { type: 'written'; file: string; chars: number }
  | { type: 'bad-id' }
  | { type: 'empty' }
  | { type: 'not-pending'; inbox: string }
  | { type: 'already-answered'; file: string };

/**
 * Answer a pending request: write `outbox/<id>.txt` atomically (temp file +
 * rename), which the bridge picks up at once. The request must be pending
 * (its `inbox/<id>.json` exists) and not answered yet, unless `force`.
 * Expected refusals are values; only I/O failures throw.
 */
export async function writeOutboxAnswer(
  paths: HomePaths,
  id: string,
  answer: string,
  options: { force?: boolean } = {},
): Promise<WriteAnswerResult> {
  if (!isSafeFileName(id)) return { type: 'bad-id' };
  if (!answer.trim()) return { type: 'empty' };
  const meta = path.join(paths.inbox, `${id}.json`);
  if (!options.force && !(await fileExists(meta)))
    return { type: 'not-pending', inbox: paths.inbox };
  const file = path.join(paths.outbox, `${id}.txt`);
  const existing = await lstat(file).catch(() => undefined);
  if (existing && !options.force) return { type: 'already-answered', file };
  await ensurePrivateDir(paths.outbox);
  await writeFileAtomic(file, answer.endsWith('\n') ? answer : `${answer}\n`);
  return { type: 'written', file, chars: answer.length };
}
