/**
 * Pure: the command line of a macs hook, built and recognized. Every hook
 * macs installs runs `<macs> hook <event> --agent A --home H`: Claude Code
 * through a shell, from the `hooks` section of its settings (built here
 * with the timeouts each event needs); Codex as its `notify` program. The
 * same shape is how macs later finds its own entries among the user's in a
 * settings file (settings-merge.ts).
 */
import path from 'node:path';
import { packageDir } from '../config/package.js';
import { quoteShellArg } from '../tmux/args.js';
import { CLAUDE_HOOK_EVENTS } from './claude-hook-protocol.js';
import { CODEX_NOTIFY_EVENT } from './codex-notify.js';
import { tomlStringArray } from './codex-home.js';

/** Seconds Claude Code gives a macs hook (it needs milliseconds). */
export const HOOK_TIMEOUT_SEC = 30;
/** PreToolUse and PermissionRequest may wait for the controller: askTimeoutSec plus this margin. */
export const ASK_TIMEOUT_MARGIN_SEC = 30;

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

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const MACS_HOOK_COMMAND =
  /(?:^|\s)'?hook'?\s+'?[A-Za-z][\w.-]*'?\s+'?--agent'?\s+'?([A-Za-z0-9][A-Za-z0-9._-]*)'?(?:\s|$)/;

/** The agent a settings command is a macs hook for, or undefined. */
export function macsHookAgent(command: string): string | undefined {
  return MACS_HOOK_COMMAND.exec(command)?.[1];
}

/** Is this settings command a macs hook for `agent`? */
export function isMacsHookFor(command: unknown, agent: string): boolean {
  if (typeof command !== 'string') return false;
  return new RegExp(
    String.raw`(?:^|\s)'?hook'?\s+'?[A-Za-z][\w.-]*'?\s+'?--agent'?\s+'?${escapeRegex(agent)}'?(?:\s|$)`,
  ).test(command);
}
