/**
 * I/O: `macs hooks install` and `uninstall` for an agent that is already
 * running: macs's hooks merged into, or removed from, the project's
 * `<dir>/.claude/settings.local.json` (the merge itself is pure,
 * settings-merge.ts). A file that is not a JSON object is never rewritten;
 * a file that already holds the same hooks is not touched; a written file
 * keeps its mode.
 */
import { chmod, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { writeFileAtomic } from '../home/fs.js';
import { makeDirs } from '../home/make-dirs.js';
import { CLAUDE_HOOK_EVENTS } from './claude-hook-protocol.js';
import { buildClaudeHooks, type HookCommandOptions } from './hook-command.js';
import {
  isRecord,
  macsEntries,
  mergeMacsHooks,
  otherMacsAgents,
  removeMacsHooks,
} from './settings-merge.js';

/** `<dir>/.claude/settings.local.json`: Claude Code's per-user project settings. */
export function localSettingsPath(dir: string): string {
  return path.join(dir, '.claude', 'settings.local.json');
}

async function readSettings(
  file: string,
): Promise<{ text: string | undefined; settings: Record<string, unknown> }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { text: undefined, settings: {} };
    throw error;
  }
  let value: unknown;
  try {
    value = text.trim() ? JSON.parse(text) : {};
  } catch (error) {
    throw new ConfigError(
      `${file} is not valid JSON (${(error as Error).message}); nothing was changed`,
      { hint: 'fix the file, then run the command again' },
    );
  }
  if (!isRecord(value))
    throw new ConfigError(
      `${file} does not hold a JSON object; nothing was changed`,
    );
  return { text, settings: value };
}

function formatSettings(settings: Record<string, unknown>): string {
  return `${JSON.stringify(settings, null, 2)}\n`;
}

export type InstallResult =
  | { type: 'installed' | 'unchanged'; file: string; events: string[] }
  | { type: 'conflict'; file: string; agents: string[] };

/** I/O: merge an agent's macs hooks into a Claude Code settings file. */
export async function installClaudeHooks(
  file: string,
  options: HookCommandOptions & { askTimeoutSec: number },
): Promise<InstallResult> {
  const { text, settings } = await readSettings(file);
  const others = otherMacsAgents(settings, options.agent);
  if (others.length > 0) return { type: 'conflict', file, agents: others };
  const ours = buildClaudeHooks(options);
  const events = [...CLAUDE_HOOK_EVENTS];
  if (
    text !== undefined &&
    JSON.stringify(macsEntries(settings, options.agent)) ===
      JSON.stringify(macsEntries({ hooks: ours }, options.agent))
  )
    return { type: 'unchanged', file, events };
  await writeUserFile(
    file,
    formatSettings(mergeMacsHooks(settings, options.agent, ours)),
  );
  return { type: 'installed', file, events };
}

/**
 * Write a file in the user's project atomically, keeping its mode (a new
 * file is private). Its folder is created if needed but never re-moded.
 */
async function writeUserFile(file: string, text: string): Promise<void> {
  const before = await stat(file).catch(() => undefined);
  await makeDirs(path.dirname(file), 0o700);
  await writeFileAtomic(file, text);
  if (before) await chmod(file, before.mode & 0o777);
}

/**
 * I/O: remove an agent's macs hooks from a Claude Code settings file; says
 * which other agents' macs hooks the file holds (`others`).
 */
export async function uninstallClaudeHooks(
  file: string,
  agent: string,
): Promise<{ file: string; removed: number; others: string[] }> {
  const { text, settings } = await readSettings(file);
  if (text === undefined) return { file, removed: 0, others: [] };
  const others = otherMacsAgents(settings, agent);
  const { settings: next, removed } = removeMacsHooks(settings, agent);
  if (removed > 0) await writeUserFile(file, formatSettings(next));
  return { file, removed, others };
}
