import type * as ExecaModule from 'execa';
import { TmuxError } from '../errors.js';

/**
 * execa, loaded when a process is first started: a command that never runs
 * tmux (`--version`, `--help`, `inbox`) does not pay for loading it.
 */
export function loadExeca(): Promise<typeof ExecaModule> {
  return import('execa');
}

/** What one tmux invocation returned. Non-zero exits are values, not throws. */
export interface TmuxResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface RunTmuxOptions {
  /** Written to tmux's stdin (e.g. `load-buffer -`). */
  input?: string;
}

/**
 * The one process boundary for tmux. Everything above it can be faked with a
 * recording function in tests.
 */
export type RunTmux = (
  args: readonly string[],
  options?: RunTmuxOptions,
) => Promise<TmuxResult>;

/**
 * Every tmux client macs runs says it is UTF-8 (`tmux -u`). tmux decides
 * from the client's locale (LC_ALL, LC_CTYPE, LANG) whether its terminal
 * takes UTF-8; when it does not (LANG=C, or no locale at all: cron, systemd,
 * `env -i`, an MCP client's bare environment), tmux 3.3a prints every
 * character that is not printable ASCII as `_` in `display -p`,
 * `list-panes -F`, `show-options` and `capture-pane` output, over control
 * mode too: the unit separator of macs's formats, tabs, and every non-ASCII
 * letter of a title or a screen. With `-u` the output is the same whatever
 * the caller's locale, and no variable of the agents' environment changes.
 */
export const TMUX_UTF8_ARGS: readonly string[] = ['-u'];

export const TMUX_INSTALL_HINT =
  'install tmux 3.2+ (Debian/Ubuntu: apt-get install -y tmux; macOS: brew install tmux) or set MACS_TMUX to its path';

/**
 * The real runner: execa with no shell, never rejecting on a non-zero exit.
 * A missing binary is a TmuxError (exit 3). `TMUX`/`TMUX_PANE` are removed
 * from the child's environment so a command aimed at a private socket can
 * never fall back to the session the user is sitting in.
 */
export function createRunTmux(
  options: { tmuxPath?: string; env?: NodeJS.ProcessEnv } = {},
): RunTmux {
  const env = options.env ?? process.env;
  const tmuxPath = options.tmuxPath ?? env.MACS_TMUX ?? 'tmux';
  const childEnv: NodeJS.ProcessEnv = { ...env };
  delete childEnv.TMUX;
  delete childEnv.TMUX_PANE;
  return async (args, runOptions = {}) => {
    const { execa } = await loadExeca();
    const argv = [...TMUX_UTF8_ARGS, ...args.map(protectArgvArg)];
    const result = await execa(tmuxPath, argv, {
      reject: false,
      env: childEnv,
      extendEnv: false,
      input: runOptions.input ?? '',
      stripFinalNewline: false,
      encoding: 'utf8',
    });
    const code = (result as { code?: string }).code;
    if (
      code === 'ENOENT' ||
      (result.failed && result.exitCode === undefined && code)
    ) {
      throw new TmuxError(`tmux not found: could not run '${tmuxPath}'`, {
        hint: TMUX_INSTALL_HINT,
        args,
        cause: result,
      });
    }
    return {
      exitCode: result.exitCode ?? 1,
      stdout: String(result.stdout ?? ''),
      stderr: String(result.stderr ?? ''),
    };
  };
}

/**
 * Where one command of a chain ends and the next begins (`tmux a \; b`, one
 * process for several commands: TmuxClient.chain). No real argument can
 * hold a NUL (neither argv nor a control-mode line carries one), so this
 * mark is never an argument; the runner gives it to tmux as a bare `;`.
 */
export const COMMAND_SEPARATOR = '\0;';

/**
 * tmux reads an argument that ends in `;` as the end of a command (the `;`
 * is dropped), and one that ends in `\;` as the text with that backslash
 * removed. So a backslash goes before a final `;`, and tmux gets the text
 * as it was: `git add -A;` stays `git add -A;`, `a\;` stays `a\;`. Only
 * COMMAND_SEPARATOR becomes a bare `;`, so no argument is a separator.
 */
export function protectArgvArg(arg: string): string {
  if (arg === COMMAND_SEPARATOR) return ';';
  return arg.endsWith(';') ? `${arg.slice(0, -1)}\\;` : arg;
}
