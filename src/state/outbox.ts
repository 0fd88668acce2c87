import { lstat, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { isSafeFileName } from '../protocol/ids.js';
import { splitResponse } from '../protocol/response.js';
import { countUntyped } from '../protocol/sanitize.js';
import { ensurePrivateDir, fileExists, writeFileAtomic } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';

/** Outbox files larger than this are refused (SPEC §4). */
export const MAX_OUTBOX_BYTES = 1024 * 1024;

export type WriteAnswerResult =
  | {
      type: 'written';
      file: string;
      chars: number;
      /** Characters of its instructions that are never typed (sanitize.ts). */
      untyped: number;
    }
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
  options: { force?: boolean; by?: string } = {},
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
  const by = answerByPath(paths, id);
  if (options.by) {
    // Before the answer: the bridge reads it when it takes the answer.
    await ensurePrivateDir(path.dirname(by));
    await writeFileAtomic(
      by,
      `${JSON.stringify({ id, by: options.by, at: new Date().toISOString() })}\n`,
    );
  } else {
    await rm(by, { force: true });
  }
  try {
    await writeFileAtomic(file, answer.endsWith('\n') ? answer : `${answer}\n`);
  } catch (error) {
    await rm(by, { force: true });
    throw error;
  }
  return {
    type: 'written',
    file,
    chars: answer.length,
    untyped: countUntyped(splitResponse(answer).instructions),
  };
}

/**
 * `.macs/answer-by/<id>.json`: the tool call behind an outbox answer (`macs
 * mcp` writes `mcp:decide_approval` or `mcp:answer_request`, the page of
 * `macs web` `web:answer` or `web:decide_approval`), so the bridge
 * can tell the controller's answer from a person's (docs/backends.md). Not
 * proof of anything: any process of the user could write either file.
 */
export function answerByPath(paths: HomePaths, id: string): string {
  return path.join(paths.runtime, 'answer-by', `${id}.json`);
}

/** Read and remove the tool call behind an outbox answer; undefined: none (a person). */
export async function takeAnswerBy(
  paths: HomePaths,
  id: string,
): Promise<string | undefined> {
  if (!isSafeFileName(id)) return undefined;
  const file = answerByPath(paths, id);
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  await rm(file, { force: true });
  try {
    const value = JSON.parse(text) as { id?: unknown; by?: unknown };
    return value.id === id &&
      typeof value.by === 'string' &&
      /^(mcp|web|hub):[a-z_]{1,40}$/.test(value.by)
      ? value.by
      : undefined;
  } catch {
    return undefined;
  }
}
