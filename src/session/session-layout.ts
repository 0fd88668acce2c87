/**
 * The shape of the tmux session `macs start` creates, as pure data: the
 * private server's name, the windows, what each pane runs and with which
 * environment. session-panes.ts turns it into tmux commands and launch.ts
 * starts each pane's program (start-session.ts runs the steps of `macs start`).
 *
 *   server  tmux -L macs-<project>-<hash>   (one per home)
 *   session macs
 *     window agents   controller and workers, tiled, remain-on-exit on
 *     window bridge   macs bridge --all
 *     window status   macs status --watch
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { tmuxSocketPath } from '../tmux/probe.js';

export const AGENTS_WINDOW = 'agents';
export const BRIDGE_WINDOW = 'bridge';
export const STATUS_WINDOW = 'status';

/** Size of the detached session until a client attaches and resizes it. */
export const SESSION_WIDTH = 200;
export const SESSION_HEIGHT = 50;

/**
 * A unix socket path must fit `sun_path`: 104 bytes on macOS and the BSDs,
 * 108 on Linux, the final NUL included. The lower bound is used everywhere.
 */
export const SOCKET_PATH_MAX_BYTES = 103;

/** What an agent pane runs until capture is set up (then respawn-pane replaces it). */
export const PLACEHOLDER_COMMAND: readonly string[] = ['sleep', '86400'];

/** A short lower-case name for the project folder, or '' when nothing is left. */
export function projectSlug(home: string): string {
  return path
    .basename(home)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 12)
    .replace(/^-+|-+$/g, '');
}

/** The first 8 hex digits of sha1(home): the same home always gets the same server. */
export function homeHash(home: string): string {
  return createHash('sha1').update(home).digest('hex').slice(0, 8);
}

/**
 * The private server of a home: `macs-<project>-<hash>`, or `macs-<hash>`
 * when the project name would make the socket path too long. Returns
 * undefined when even the short name does not fit (TMUX_TMPDIR too deep).
 */
export function defaultSocketName(
  home: string,
  env: Readonly<Record<string, string | undefined>>,
  uid: number,
): string | undefined {
  const hash = homeHash(home);
  const slug = projectSlug(home);
  const names = slug
    ? [`macs-${slug}-${hash}`, `macs-${hash}`]
    : [`macs-${hash}`];
  return names.find(
    (name) =>
      Buffer.byteLength(tmuxSocketPath(name, env, uid)) <=
      SOCKET_PATH_MAX_BYTES,
  );
}

/** The environment every agent pane gets (SPEC §7: hooks find their agent by it). */
export function buildAgentEnv(options: {
  agent: string;
  home: string;
  socket: string;
  /** The controller gets MACS_ROLE=controller: its hooks then treat it as one. */
  role?: 'worker' | 'controller';
  extra?: Readonly<Record<string, string>>;
}): Record<string, string> {
  return {
    ...options.extra,
    MACS_AGENT: options.agent,
    MACS_HOME: options.home,
    MACS_TMUX_SOCKET: options.socket,
    ...(options.role === 'controller' ? { MACS_ROLE: 'controller' } : {}),
  };
}

/** How an agent's program is given: an argv (no shell) or a shell command line. */
export type LaunchCommand =
  { kind: 'argv'; argv: readonly string[] } | { kind: 'shell'; text: string };

/**
 * The launcher every agent pane runs: when the program is not on PATH it
 * says so in the pane and exits 127 (the pane stays, `remain-on-exit`, and
 * the bridge marks the agent `dead` with that status); otherwise it execs
 * the program, so the pane's process is the agent itself.
 */
export const LAUNCH_SCRIPT = [
  'prog=$1; shift',
  'if [ -n "$prog" ] && ! command -v "$prog" >/dev/null 2>&1; then',
  `  printf 'macs: %s: command not found (agent %s)\\n' "$prog" "$MACS_AGENT" >&2`,
  `  printf 'hint: install it, or fix the command in macs.config.json (or --worker/--controller), then: macs stop; macs start\\n' >&2`,
  // A moment for tmux to read the message before the pane's program ends
  // (a busy server may otherwise close the pane with it unread).
  '  sleep 1',
  '  exit 127',
  'fi',
  'exec "$@"',
].join('\n');

/**
 * A shell command line run as `sh -c`. A simple command (no `;`, `&`, `|`,
 * parentheses, newlines or leading `VAR=`) gets `exec` in front, so the
 * program replaces the shell and tmux reports its name as the pane's command
 * (which pane discovery uses).
 */
export function execShellText(text: string): string {
  const trimmed = text.trim();
  const first = trimmed.split(/\s+/, 1)[0] ?? '';
  if (/[;&|()\n]/.test(trimmed) || first.includes('=') || first === 'exec')
    return trimmed;
  return `exec ${trimmed}`;
}

/** The program name a command runs, for the PATH check; undefined when unclear. */
export function programOf(command: LaunchCommand): string | undefined {
  if (command.kind === 'argv') return command.argv[0];
  const first = command.text.trim().split(/\s+/, 1)[0] ?? '';
  return /^[A-Za-z0-9_./+-]+$/.test(first) ? first : undefined;
}

/** The argv of an agent pane: the launcher, then the program. */
export function buildLaunchArgv(command: LaunchCommand): string[] {
  const inner =
    command.kind === 'argv'
      ? [...command.argv]
      : ['sh', '-c', execShellText(command.text)];
  return [
    'sh',
    '-c',
    LAUNCH_SCRIPT,
    'macs-launch',
    programOf(command) ?? '',
    ...inner,
  ];
}

/**
 * The command with extra arguments appended (an agent's hook settings, e.g.
 * `--settings <file>`). A shell command line gets them quoted at its end,
 * but only when it is one simple command; otherwise it is left as it is and
 * `undefined` says the arguments could not be added.
 */
export function withExtraArgs(
  command: LaunchCommand,
  args: readonly string[],
): LaunchCommand | undefined {
  if (args.length === 0) return command;
  if (command.kind === 'argv')
    return { kind: 'argv', argv: [...command.argv, ...args] };
  if (/[;&|()\n]/.test(command.text)) return undefined;
  const quoted = args.map((a) => `'${a.replaceAll("'", `'\\''`)}'`);
  return { kind: 'shell', text: `${command.text.trim()} ${quoted.join(' ')}` };
}

/** The command as people read it (session.json, `macs start` output). */
export function describeCommand(command: LaunchCommand): string[] {
  return command.kind === 'argv'
    ? [...command.argv]
    : ['sh', '-c', command.text];
}

/** `macs bridge --all` for the bridge window; home and socket stay visible in `ps`. */
export function buildBridgeCommand(options: {
  macsArgv: readonly string[];
  home: string;
  socket: string;
  config?: string;
  /** The session runs unattended (`macs start --non-interactive`). */
  nonInteractive?: boolean;
}): string[] {
  return [
    ...options.macsArgv,
    'bridge',
    '--all',
    '--home',
    options.home,
    '--tmux-socket',
    options.socket,
    ...(options.config ? ['--config', options.config] : []),
    ...(options.nonInteractive ? ['--non-interactive'] : []),
  ];
}

/**
 * The tmux `wait-for` channel the status window waits on until a person
 * attaches (the session's `client-attached` hook signals it).
 */
export const STATUS_CHANNEL = 'macs-status';

/**
 * The status window runs `macs status --watch`, once someone looks: in a
 * session no person is attached to (`--detach`, a host started by a hub) the
 * window waits on a tmux channel, which the session's `client-attached`
 * hook signals (STATUS_HOOK), so a view nobody sees costs nothing (it took
 * most of the CPU of a 32-agent start, and a share of a detached session's
 * idle). The view runs at a lower CPU priority (`nice`), so it never slows
 * the agents and the bridge. When it fails (a build without the status
 * view, or a crash) it says so and follows the event log instead, so the
 * window is never just a dead pane. Exit 0 (the person quit) and 130
 * (interrupted by `macs stop`) end the pane as they are.
 */
export const STATUS_SCRIPT = [
  'h=$1; s=$2; shift 2',
  't=${MACS_TMUX:-tmux}',
  // A person's client (not a control-mode one: the bridge reads the panes
  // through one) attached already: the view starts at once.
  `if ! "$t" -L "$s" list-clients -t "$TMUX_PANE" -F '#{client_control_mode}' 2>/dev/null | grep -qx 0; then`,
  "  printf 'macs: the live status view starts when someone attaches to this session\\n(or run macs status in any terminal).\\n'",
  // Interrupted (`macs stop` types Ctrl-C): end here, no view. The wait
  // runs beside the shell, which the interrupt reaches.
  `  "$t" -L "$s" wait-for ${STATUS_CHANNEL} & w=$!`,
  "  trap 'kill $w 2>/dev/null; exit 130' INT TERM HUP",
  '  wait $w || exit 130',
  '  trap - INT TERM HUP',
  "  printf '\\033[H\\033[2J'",
  'fi',
  'if command -v nice >/dev/null 2>&1; then set -- nice -n 10 "$@"; fi',
  '"$@" status --watch --home "$h" --tmux-socket "$s"',
  'code=$?',
  'if [ "$code" -eq 0 ] || [ "$code" -eq 130 ]; then exit "$code"; fi',
  `printf '\\nmacs status --watch is not available or failed (exit %s); following the event log instead:\\n\\n' "$code"`,
  'exec "$@" events --follow --home "$h" --tmux-socket "$s"',
].join('\n');

/**
 * The session's hook that starts the status view when a person's client
 * attaches (a control-mode client, the bridge's, does not count).
 */
export const STATUS_HOOK = `if-shell -F '#{?client_control_mode,0,1}' 'wait-for -S ${STATUS_CHANNEL}'`;

export function buildStatusCommand(options: {
  macsArgv: readonly string[];
  home: string;
  socket: string;
}): string[] {
  return [
    'sh',
    '-c',
    STATUS_SCRIPT,
    'macs-status',
    options.home,
    options.socket,
    ...options.macsArgv,
  ];
}

/** Pane borders name each agent and show how a dead one ended. */
export const PANE_BORDER_FORMAT =
  ' #{?@macs_agent,#{@macs_agent},#{pane_title}}#{?pane_dead, [exited #{pane_dead_status}#{pane_dead_signal}],} ';
