/**
 * What every command takes and gets, kept light: a command's flags load
 * only this and commander, so `macs --help` and `macs --version` start at
 * once; what a command's run needs is loaded when it runs.
 */
import { Option, type Command } from 'commander';
import type { LogLevel } from '../log/logger.js';
import type { ControlChannel } from '../tmux/control.js';
import type { RunTmux } from '../tmux/run.js';
import type { Output } from './output.js';

/** What every command gets from `main.ts` (and tests inject). */
export interface CliDeps {
  output: Output;
  env: NodeJS.ProcessEnv;
  cwd: string;
  runTmux: RunTmux;
  /**
   * Open a tmux control-mode connection (long-running commands run their
   * tmux commands over it). Absent: every command starts a tmux process.
   */
  openTmuxControl?: (
    socket: string | undefined,
    options?: { onDrop?: (reason: string) => void },
  ) => ControlChannel;
  /**
   * Read all of stdin (for `-` arguments); with `maxBytes`, reading stops
   * and it rejects once the input is longer.
   */
  readStdin: (maxBytes?: number) => Promise<string>;
  stdinIsTTY: boolean;
  /** Resolves when the user interrupts (SIGINT/SIGTERM); long-running commands stop then. */
  interrupted: Promise<'SIGINT' | 'SIGTERM'>;
}

export interface CommonOptions {
  home?: string;
  tmuxSocket?: string;
  config?: string;
  logLevel?: LogLevel;
  /** Accept a home other users own or may write to (a warning, not an error). */
  allowSharedHome?: boolean;
}

/** Options every command takes; each has a `MACS_*` environment twin. */
export function addCommonOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--home <dir>',
        'the folder macs works in (default: the nearest one at or above the current folder that holds .macs/ or macs.config.json)',
      ).env('MACS_HOME'),
    )
    .addOption(
      new Option(
        '--tmux-socket <name>',
        'use the private tmux server `tmux -L <name>`',
      ).env('MACS_TMUX_SOCKET'),
    )
    .addOption(
      new Option(
        '--config <file>',
        'config file (default: <home>/macs.config.json)',
      ).env('MACS_CONFIG'),
    )
    .addOption(
      new Option(
        '--log-level <level>',
        'developer log level, written to .macs/macs.log',
      )
        .choices(['trace', 'debug', 'info', 'warn', 'error', 'silent'])
        .env('MACS_LOG_LEVEL'),
    )
    .addOption(
      new Option(
        '--allow-shared-home',
        'accept a home (or its folders and files) that another user owns or may write to, with a warning instead of an error (docs/security.md)',
      ).env('MACS_ALLOW_SHARED_HOME'),
    );
}
