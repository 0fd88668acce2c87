/**
 * I/O: what Codex's own records say about a thread, for the notify hook
 * (codex-notify.ts). Codex records each persisted thread in a "rollout" file,
 * `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`, whose
 * first line is the thread's `session_meta` (with `thread_source`: `user`
 * for the threads a person talks to). Threads Codex runs for itself, such as
 * the one that names a thread, are not recorded there.
 *
 * The hook runs with Codex's environment, so `CODEX_HOME` (default
 * `~/.codex`) is the folder of the Codex that called it.
 */
import { open, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { CodexThreadInfo } from './codex-notify.js';

/** At most this many day folders are looked through (newest first). */
const MAX_DAY_FOLDERS = 400;
/** The first line of a rollout is read up to this many bytes. */
const FIRST_LINE_MAX_BYTES = 256 * 1024;

/**
 * Codex's home for an environment: `$CODEX_HOME`, else `$HOME/.codex`;
 * undefined when the environment names neither.
 */
export function codexHomeOf(env: NodeJS.ProcessEnv): string | undefined {
  if (env.CODEX_HOME && path.isAbsolute(env.CODEX_HOME)) return env.CODEX_HOME;
  if (env.HOME && path.isAbsolute(env.HOME))
    return path.join(env.HOME, '.codex');
  return undefined;
}

async function subfolders(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory() && /^\d+$/.test(e.name))
      .map((e) => e.name)
      .sort()
      .reverse();
  } catch {
    return [];
  }
}

/** The rollout file of a thread, newest day first; undefined when none. */
export async function findRollout(
  sessionsDir: string,
  threadId: string,
): Promise<string | undefined> {
  const suffix = `-${threadId}.jsonl`;
  let days = 0;
  for (const year of await subfolders(sessionsDir)) {
    for (const month of await subfolders(path.join(sessionsDir, year))) {
      const monthDir = path.join(sessionsDir, year, month);
      for (const day of await subfolders(monthDir)) {
        if (++days > MAX_DAY_FOLDERS) return undefined;
        const dayDir = path.join(monthDir, day);
        const names = await readdir(dayDir).catch(() => [] as string[]);
        const found = names.find(
          (n) => n.startsWith('rollout-') && n.endsWith(suffix),
        );
        if (found) return path.join(dayDir, found);
      }
    }
  }
  return undefined;
}

async function firstLine(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(FIRST_LINE_MAX_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    const end = text.indexOf('\n');
    return end >= 0 ? text.slice(0, end) : text;
  } finally {
    await handle.close();
  }
}

/**
 * What Codex recorded about a thread; undefined when nothing can be known
 * (no `sessions` folder: Codex keeps no records there, so every thread is
 * taken as the agent's own).
 */
export async function readCodexThreadInfo(
  codexHome: string,
  threadId: string,
): Promise<CodexThreadInfo | undefined> {
  const sessionsDir = path.join(codexHome, 'sessions');
  if ((await subfolders(sessionsDir)).length === 0) return undefined;
  const file = await findRollout(sessionsDir, threadId);
  if (!file) return { recorded: false };
  try {
    const meta = JSON.parse(await firstLine(file)) as {
      type?: unknown;
      payload?: { thread_source?: unknown };
    };
    const source = meta.payload?.thread_source;
    return typeof source === 'string'
      ? { recorded: true, source }
      : { recorded: true };
  } catch {
    return { recorded: true };
  }
}
