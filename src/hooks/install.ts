/**
 * Installing macs's hooks into an agent (docs/hooks.md):
 *
 * - For agents that `macs start` launches: a per-agent settings file under
 *   `.macs/settings/`, passed on the agent's command line (Claude Code
 *   `--settings <file>`; Codex: a CODEX_HOME of its own, codex-home.ts). The user's repository is
 *   not touched. `prepareAgentHooks` writes the file and returns the args.
 * - For agents already running: `macs hooks install <agent>` merges the same
 *   hooks into `<dir>/.claude/settings.local.json`; installing again changes
 *   nothing, and `uninstall` removes only macs's own entries.
 *
 * The builders are pure; the functions that touch files are marked.
 */
import { chmod, mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { packageDir } from '../config/package.js';
import { ConfigError } from '../errors.js';
import { ensurePrivateDir, writeFileAtomic } from '../home/fs.js';
import { agentSettingsDir } from '../state/hook-files.js';
import type { HomePaths } from '../home/paths.js';
import { quoteShellArg } from '../tmux/args.js';
import { CLAUDE_HOOK_EVENTS } from './claude.js';
import { CODEX_NOTIFY_EVENT } from './codex.js';
import {
  agentCodexHome,
  buildCodexConfig,
  linkCodexHome,
  readCodexSource,
  tomlStringArray,
  userCodexHome,
} from './codex-home.js';
import os from 'node:os';

/** Seconds Claude Code gives a macs hook (it needs milliseconds). */
export const HOOK_TIMEOUT_SEC = 30;
/** PreToolUse and PermissionRequest may wait for the controller: askTimeoutSec plus this margin. */
export const ASK_TIMEOUT_MARGIN_SEC = 30;

export type HooksKind = 'claude' | 'codex' | 'none';

export interface HookCommandOptions {
  /** argv that runs macs, e.g. `[process.execPath, '/…/dist/main.js']`. */
  macsCommand: readonly string[];
  agent: string;
  /** The macs home (absolute). */
  home: string;
}

/** How this macs was started: node and dist/main.js, as absolute paths. */
export function defaultMacsCommand(): string[] {
  const script = process.argv[1];
  if (script && /main\.js$/.test(script))
    return [process.execPath, path.resolve(script)];
  return [process.execPath, path.join(packageDir(), 'dist', 'main.js')];
}

/** argv of one hook call: `<macs> hook <event> --agent A --home H`. */
export function buildHookArgv(
  event: string,
  options: HookCommandOptions,
): string[] {
  return [
    ...options.macsCommand,
    'hook',
    event,
    '--agent',
    options.agent,
    '--home',
    options.home,
  ];
}

/** The shell command Claude Code runs for one event (its hooks run via a shell). */
export function buildHookCommand(
  event: string,
  options: HookCommandOptions,
): string {
  return buildHookArgv(event, options).map(quoteShellArg).join(' ');
}

/** One Claude Code hook entry: `{ "type": "command", "command", "timeout" }`. */
export interface ClaudeHookEntry {
  type: 'command';
  command: string;
  timeout?: number;
  [key: string]: unknown;
}

/** A matcher group: `{ "matcher"?, "hooks": [entry…] }`. */
export interface ClaudeMatcherGroup {
  matcher?: string;
  hooks: ClaudeHookEntry[];
  [key: string]: unknown;
}

export type ClaudeHooksSection = Record<string, ClaudeMatcherGroup[]>;

/**
 * The `hooks` section macs needs in Claude Code's settings: one command per
 * event, all tools matched for the tool events, and a PreToolUse and
 * PermissionRequest timeout long enough for an approval.
 */
export function buildClaudeHooks(
  options: HookCommandOptions & { askTimeoutSec: number },
): ClaudeHooksSection {
  const section: ClaudeHooksSection = {};
  for (const event of CLAUDE_HOOK_EVENTS) {
    const timeout =
      event === 'PreToolUse' || event === 'PermissionRequest'
        ? options.askTimeoutSec + ASK_TIMEOUT_MARGIN_SEC
        : HOOK_TIMEOUT_SEC;
    const matcher =
      event === 'PreToolUse' ||
      event === 'PermissionRequest' ||
      event === 'PostToolUse' ||
      event === 'PostToolUseFailure'
        ? { matcher: '*' }
        : {};
    section[event] = [
      {
        ...matcher,
        hooks: [
          {
            type: 'command',
            command: buildHookCommand(event, options),
            timeout,
          },
        ],
      },
    ];
  }
  return section;
}

/**
 * Codex: `-c notify=[…]` (Codex appends the event JSON as the last
 * argument). For `macs hooks install`, which prints the setting; agents
 * `macs start` launches get it in a config.toml of their own (codex-home.ts).
 */
export function buildCodexNotifyArgs(options: HookCommandOptions): string[] {
  return [
    '-c',
    `notify=${tomlStringArray(buildHookArgv(CODEX_NOTIFY_EVENT, options))}`,
  ];
}

export interface AgentHookSetup {
  /** Arguments to add to the agent's command line. */
  args: string[];
  /** Environment for the agent's pane (hooks also find their agent by it). */
  env: Record<string, string>;
  /** Files to write before the agent starts. */
  files: { path: string; content: string }[];
  /** Codex: the user's Codex home to link sign-in and instructions from. */
  codexLinks?: { home: string; source: string };
}

export interface AgentHookOptions {
  agent: string;
  /** The preset's `hooks`. */
  hooks: HooksKind;
  paths: HomePaths;
  askTimeoutSec: number;
  macsCommand?: readonly string[];
  /** Codex: the user's Codex home (default: `$CODEX_HOME`, else `~/.codex`). */
  codexSourceHome?: string;
  /** Codex: the text of the user's config.toml (read by prepareAgentHooks). */
  codexSourceConfig?: string;
}

/** The per-agent settings file for an agent macs starts. */
export function agentSettingsPath(paths: HomePaths, agent: string): string {
  return path.join(agentSettingsDir(paths), `${agent}.claude.json`);
}

/**
 * Pure: what an agent macs starts needs for its hooks. For Claude Code a
 * settings file and `--settings <file>`; for Codex a Codex home of its own
 * (`CODEX_HOME=.macs/codex/<agent>`) whose config.toml is the user's with
 * macs's `notify` (no command-line settings: those put Codex in embedded
 * mode); nothing for presets without hooks. Claude Code merges `--settings` with the
 * user's own settings, so the user's hooks keep running too.
 */
export function buildAgentHookSetup(options: AgentHookOptions): AgentHookSetup {
  const command: HookCommandOptions = {
    macsCommand: options.macsCommand ?? defaultMacsCommand(),
    agent: options.agent,
    home: options.paths.home,
  };
  const env = { MACS_AGENT: options.agent, MACS_HOME: options.paths.home };
  switch (options.hooks) {
    case 'claude': {
      const file = agentSettingsPath(options.paths, options.agent);
      const settings = {
        hooks: buildClaudeHooks({
          ...command,
          askTimeoutSec: options.askTimeoutSec,
        }),
      };
      return {
        args: ['--settings', file],
        env,
        files: [
          { path: file, content: `${JSON.stringify(settings, null, 2)}\n` },
        ],
      };
    }
    case 'codex': {
      const home = agentCodexHome(options.paths.runtime, options.agent);
      const source =
        options.codexSourceHome ?? userCodexHome(process.env, os.homedir());
      return {
        args: [],
        env: { ...env, CODEX_HOME: home },
        files: [
          {
            path: path.join(home, 'config.toml'),
            content: buildCodexConfig(
              options.codexSourceConfig,
              buildHookArgv(CODEX_NOTIFY_EVENT, command),
            ),
          },
        ],
        codexLinks: { home, source },
      };
    }
    case 'none':
      return { args: [], env, files: [] };
    default: {
      const never: never = options.hooks;
      throw new Error(`unknown hooks kind ${String(never)}`);
    }
  }
}

/**
 * For `macs start`: write the agent's hook files (0600, in a 0700 folder)
 * and return the args and env to start it with. Call it for every agent;
 * presets without hooks get empty args.
 */
export async function prepareAgentHooks(
  options: AgentHookOptions,
): Promise<Pick<AgentHookSetup, 'args' | 'env'>> {
  let setup = buildAgentHookSetup(options);
  if (setup.codexLinks && options.codexSourceConfig === undefined) {
    const config = await readCodexSource(setup.codexLinks.source);
    if (config !== undefined)
      setup = buildAgentHookSetup({ ...options, codexSourceConfig: config });
  }
  for (const file of setup.files) {
    await ensurePrivateDir(path.dirname(file.path));
    await writeFileAtomic(file.path, file.content);
  }
  if (setup.codexLinks)
    await linkCodexHome(setup.codexLinks.home, setup.codexLinks.source);
  return { args: setup.args, env: setup.env };
}

// ---- merging into an existing settings file --------------------------------

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const MACS_HOOK_COMMAND =
  /(?:^|\s)'?hook'?\s+'?[A-Za-z][\w.-]*'?\s+'?--agent'?\s+'?([A-Za-z0-9][A-Za-z0-9._-]*)'?(?:\s|$)/;

/** The agent a settings command is a macs hook for, or undefined. */
export function macsHookAgent(command: string): string | undefined {
  return MACS_HOOK_COMMAND.exec(command)?.[1];
}

function isMacsHookFor(command: unknown, agent: string): boolean {
  if (typeof command !== 'string') return false;
  return new RegExp(
    String.raw`(?:^|\s)'?hook'?\s+'?[A-Za-z][\w.-]*'?\s+'?--agent'?\s+'?${escapeRegex(agent)}'?(?:\s|$)`,
  ).test(command);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Pure: remove an agent's macs hook entries from a settings object. Entries
 * of the user (or of other tools) are kept exactly; a matcher group or an
 * event list is dropped only when macs's removal emptied it.
 */
export function removeMacsHooks(
  settings: Record<string, unknown>,
  agent: string,
): { settings: Record<string, unknown>; removed: number } {
  if (!isRecord(settings.hooks)) return { settings, removed: 0 };
  let removed = 0;
  const hooks: Record<string, unknown> = {};
  for (const [event, groups] of Object.entries(settings.hooks)) {
    if (!Array.isArray(groups)) {
      hooks[event] = groups;
      continue;
    }
    const kept: unknown[] = [];
    for (const group of groups) {
      if (!isRecord(group) || !Array.isArray(group.hooks)) {
        kept.push(group);
        continue;
      }
      const entries = group.hooks.filter(
        (entry) => !(isRecord(entry) && isMacsHookFor(entry.command, agent)),
      );
      const gone = group.hooks.length - entries.length;
      removed += gone;
      if (gone > 0 && entries.length === 0) continue;
      kept.push(gone > 0 ? { ...group, hooks: entries } : group);
    }
    if (kept.length > 0 || groups.length === 0) hooks[event] = kept;
  }
  const next: Record<string, unknown> = { ...settings };
  if (Object.keys(hooks).length > 0 || Object.keys(settings.hooks).length === 0)
    next.hooks = hooks;
  else delete next.hooks;
  return { settings: next, removed };
}

/**
 * Pure: add macs's hooks for an agent to a settings object, replacing any
 * macs entries for that agent (so installing twice gives the same file) and
 * appending after the user's own groups.
 */
export function mergeMacsHooks(
  settings: Record<string, unknown>,
  agent: string,
  ours: ClaudeHooksSection,
): Record<string, unknown> {
  const { settings: clean } = removeMacsHooks(settings, agent);
  const hooks: Record<string, unknown> = isRecord(clean.hooks)
    ? { ...clean.hooks }
    : {};
  for (const [event, groups] of Object.entries(ours)) {
    const existing = Array.isArray(hooks[event])
      ? (hooks[event] as unknown[])
      : [];
    hooks[event] = [...existing, ...groups];
  }
  return { ...clean, hooks };
}

/** Agents other than `agent` that already have macs hooks in these settings. */
export function otherMacsAgents(
  settings: Record<string, unknown>,
  agent: string,
): string[] {
  const found = new Set<string>();
  if (!isRecord(settings.hooks)) return [];
  for (const groups of Object.values(settings.hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      if (!isRecord(group) || !Array.isArray(group.hooks)) continue;
      for (const entry of group.hooks) {
        if (!isRecord(entry) || typeof entry.command !== 'string') continue;
        const owner = macsHookAgent(entry.command);
        if (owner && owner !== agent) found.add(owner);
      }
    }
  }
  return [...found].sort();
}

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

/** An agent's macs entries by event, with their matcher: to compare installs. */
function macsEntries(
  settings: Record<string, unknown>,
  agent: string,
): [string, string, unknown, unknown][] {
  const found: [string, string, unknown, unknown][] = [];
  if (!isRecord(settings.hooks)) return found;
  for (const [event, groups] of Object.entries(settings.hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      if (!isRecord(group) || !Array.isArray(group.hooks)) continue;
      for (const entry of group.hooks) {
        if (isRecord(entry) && isMacsHookFor(entry.command, agent))
          found.push([
            event,
            String(entry.command),
            entry.timeout,
            group.matcher,
          ]);
      }
    }
  }
  return found.sort((a, b) => a[0].localeCompare(b[0]));
}

/**
 * Write a file in the user's project atomically, keeping its mode (a new
 * file is private). Its folder is created if needed but never re-moded.
 */
async function writeUserFile(file: string, text: string): Promise<void> {
  const before = await stat(file).catch(() => undefined);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, text);
  if (before) await chmod(file, before.mode & 0o777);
}

/** I/O: remove an agent's macs hooks from a Claude Code settings file. */
export async function uninstallClaudeHooks(
  file: string,
  agent: string,
): Promise<{ file: string; removed: number }> {
  const { text, settings } = await readSettings(file);
  if (text === undefined) return { file, removed: 0 };
  const { settings: next, removed } = removeMacsHooks(settings, agent);
  if (removed > 0) await writeUserFile(file, formatSettings(next));
  return { file, removed };
}
