/**
 * I/O: where each agent keeps the records macs reads usage from
 * (docs/usage.md). Folders are listed without following links; a file of
 * another user or a link is refused when read (read-lines.ts).
 *
 * - Claude Code: the transcript its hooks name (`transcript_path`), one
 *   file per conversation;
 * - Codex: the rollouts under the Codex home macs gives the agent
 *   (`.macs/codex/<agent>/sessions/YYYY/MM/DD/rollout-….jsonl`), all of
 *   them this agent's;
 * - Gemini CLI: the session files of the agent's folder under its Gemini
 *   home (`$GEMINI_CLI_HOME` or `$HOME`, then `.gemini/tmp/<project>/chats/`,
 *   `<project>` being the short name `.gemini/projects.json` gives the
 *   folder), modified since the agent started.
 */
import { constants } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';

/** Day folders of Codex's sessions looked through, newest first. */
const CODEX_DAYS = 3;
/** projects.json is read up to this size. */
const PROJECTS_MAX_BYTES = 1024 * 1024;

async function dirents(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

async function numberedDirs(dir: string): Promise<string[]> {
  return (await dirents(dir))
    .filter((e) => e.isDirectory() && /^\d+$/.test(e.name))
    .map((e) => e.name)
    .sort()
    .reverse();
}

/** The rollout files of a Codex `sessions` folder, in its newest day folders. */
export async function findCodexRollouts(
  sessionsDir: string,
): Promise<string[]> {
  const files: string[] = [];
  let days = 0;
  for (const year of await numberedDirs(sessionsDir))
    for (const month of await numberedDirs(path.join(sessionsDir, year)))
      for (const day of await numberedDirs(
        path.join(sessionsDir, year, month),
      )) {
        if (days++ >= CODEX_DAYS) return files;
        const dir = path.join(sessionsDir, year, month, day);
        for (const e of await dirents(dir))
          if (
            e.isFile() &&
            e.name.startsWith('rollout-') &&
            e.name.endsWith('.jsonl')
          )
            files.push(path.join(dir, e.name));
      }
  return files;
}

const ProjectsSchema = z.object({
  projects: z.record(z.string(), z.string()),
});

/** Gemini CLI's short name for a project folder (`projects.json`). */
export async function geminiProjectId(
  geminiDir: string,
  projectRoot: string,
): Promise<string | undefined> {
  let text: string;
  try {
    const handle = await open(
      path.join(geminiDir, 'projects.json'),
      constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0),
    );
    try {
      const buffer = Buffer.alloc(PROJECTS_MAX_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
    const parsed = ProjectsSchema.safeParse(JSON.parse(text));
    if (!parsed.success) return undefined;
    const id = parsed.data.projects[path.resolve(projectRoot)];
    // A folder name, never a path.
    return id && /^[A-Za-z0-9._-]+$/.test(id) && id !== '..' && id !== '.'
      ? id
      : undefined;
  } catch {
    return undefined;
  }
}

/** The Gemini folder of an agent's environment: `$GEMINI_CLI_HOME|$HOME/.gemini`. */
export function geminiDirOf(
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const home = env.GEMINI_CLI_HOME || env.HOME;
  return home && path.isAbsolute(home) ? path.join(home, '.gemini') : undefined;
}

/**
 * Gemini CLI's session files of a project modified since `sinceMs`: the
 * main sessions (`session-….jsonl`) and those of its subagents (a folder
 * per session).
 */
export async function findGeminiSessions(
  geminiDir: string,
  projectRoot: string,
  sinceMs: number,
): Promise<string[]> {
  const id = await geminiProjectId(geminiDir, projectRoot);
  if (!id) return [];
  const chats = path.join(geminiDir, 'tmp', id, 'chats');
  const candidates: string[] = [];
  for (const e of await dirents(chats)) {
    if (
      e.isFile() &&
      e.name.startsWith('session-') &&
      e.name.endsWith('.jsonl')
    )
      candidates.push(path.join(chats, e.name));
    else if (e.isDirectory())
      for (const sub of await dirents(path.join(chats, e.name)))
        if (sub.isFile() && sub.name.endsWith('.jsonl'))
          candidates.push(path.join(chats, e.name, sub.name));
  }
  const recent: string[] = [];
  for (const file of candidates) {
    const info = await stat(file).catch(() => undefined);
    if (info && info.mtimeMs >= sinceMs) recent.push(file);
  }
  return recent;
}
