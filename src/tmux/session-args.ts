/**
 * Pure argv builders for creating and ending tmux sessions, windows and
 * panes (`macs start` / `macs stop`). Like args.ts, each returns the
 * arguments after the global `-L socket` prefix. A `command` given as more
 * than one argument is executed by tmux directly, with no shell in between
 * (tmux(1), "shell-command [argument ...]", tmux 3.0+).
 */

/** Print the new pane's id (and pid) so it never has to be looked up by name. */
export const NEW_PANE_FORMAT = '#{pane_id}';

/** A target that matches this session name exactly (no prefix matching). */
export function exactSession(session: string): string {
  return `=${session}`;
}

export function buildNewSessionArgs(options: {
  session: string;
  window: string;
  width: number;
  height: number;
  cwd: string;
  command: readonly string[];
}): string[] {
  return [
    'new-session',
    '-d',
    '-s',
    options.session,
    '-n',
    options.window,
    '-x',
    String(options.width),
    '-y',
    String(options.height),
    '-c',
    options.cwd,
    '-P',
    '-F',
    NEW_PANE_FORMAT,
    ...options.command,
  ];
}

export function buildNewWindowArgs(options: {
  session: string;
  window: string;
  cwd: string;
  command: readonly string[];
}): string[] {
  return [
    'new-window',
    '-d',
    '-t',
    `${exactSession(options.session)}:`,
    '-n',
    options.window,
    '-c',
    options.cwd,
    '-P',
    '-F',
    NEW_PANE_FORMAT,
    ...options.command,
  ];
}

/** Split the window of `pane`; `-d` keeps the focus where it is. */
export function buildSplitWindowArgs(options: {
  pane: string;
  cwd: string;
  command: readonly string[];
}): string[] {
  return [
    'split-window',
    '-d',
    '-t',
    options.pane,
    '-c',
    options.cwd,
    '-P',
    '-F',
    NEW_PANE_FORMAT,
    ...options.command,
  ];
}

/**
 * Replace the program in a pane (`-k` kills what runs there). The pane keeps
 * its id, its options and its `pipe-pane`, so output capture set up before
 * sees the new program's very first byte.
 */
export function buildRespawnPaneArgs(options: {
  pane: string;
  cwd: string;
  env: Readonly<Record<string, string>>;
  command: readonly string[];
}): string[] {
  return [
    'respawn-pane',
    '-k',
    '-t',
    options.pane,
    '-c',
    options.cwd,
    ...Object.entries(options.env).flatMap(([key, value]) => [
      '-e',
      `${key}=${value}`,
    ]),
    ...options.command,
  ];
}

export function buildSelectLayoutArgs(
  target: string,
  layout: string,
): string[] {
  return ['select-layout', '-t', target, layout];
}

export function buildSetWindowOptionArgs(
  target: string,
  name: string,
  value: string,
): string[] {
  return ['set-option', '-w', '-t', target, name, value];
}

export function buildSetPaneTitleArgs(pane: string, title: string): string[] {
  return ['select-pane', '-t', pane, '-T', title];
}

export function buildHasSessionArgs(session: string): string[] {
  return ['has-session', '-t', exactSession(session)];
}

export function buildListSessionsArgs(): string[] {
  return ['list-sessions', '-F', '#{session_name}'];
}

export function buildKillPaneArgs(pane: string): string[] {
  return ['kill-pane', '-t', pane];
}

export function buildKillSessionArgs(session: string): string[] {
  return ['kill-session', '-t', exactSession(session)];
}

export function buildAttachArgs(session: string): string[] {
  return ['attach-session', '-t', exactSession(session)];
}

/** How a pane's program ended: `status<US>signal` (either may be empty). */
export const PANE_EXIT_FORMAT = '#{pane_dead_status}\u001f#{pane_dead_signal}';

/** Parse PANE_EXIT_FORMAT output. */
export function parsePaneExit(stdout: string): {
  exitCode?: number;
  exitSignal?: number;
} {
  const [status = '', signal = ''] = stdout.trim().split('\u001f');
  const code = /^\d+$/.test(status) ? Number(status) : undefined;
  const sig = /^\d+$/.test(signal) ? Number(signal) : undefined;
  return {
    ...(code !== undefined ? { exitCode: code } : {}),
    ...(sig !== undefined ? { exitSignal: sig } : {}),
  };
}

/**
 * A no-op job on the server. tmux records a dead pane's exit status only
 * when it reaps the process, which it does in its SIGCHLD handler; tmux 3.3a
 * sometimes leaves a killed pane's process unreaped (`pane_dead` is 1 but
 * `pane_dead_status`/`pane_dead_signal` stay empty) until another child of
 * the server exits. This job's exit is such a child.
 */
export function buildReapNudgeArgs(): string[] {
  return ['run-shell', 'true'];
}

/** `tmux 3.3a` → [3, 3]; undefined for builds without a number (`tmux master`). */
export function parseTmuxVersion(stdout: string): [number, number] | undefined {
  const match = /(\d+)\.(\d+)/.exec(stdout);
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2])];
}

/** Run `command` (a tmux command) each time `hook` fires for `session`. */
export function buildSetHookArgs(
  session: string,
  hook: string,
  command: string,
): string[] {
  // set-hook's target is a pane's (set-option): the session's, exactly.
  return ['set-hook', '-t', `${exactSession(session)}:`, hook, command];
}
