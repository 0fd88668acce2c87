import { Command, CommanderError } from 'commander';
import { registerAttachCommand } from './attach.js';
import { registerBridgeCommand } from './bridge.js';
import type { CliDeps } from './options.js';
import { registerAddCommand } from './add.js';
import { registerDismissCommand } from './dismiss.js';
import { registerPauseCommands } from './pause.js';
import { registerRestartCommand } from './restart.js';
import { registerEventsCommand } from './events.js';
import { registerUsageCommand } from './usage.js';
import { registerHookCommand } from './hook.js';
import { registerHooksCommand } from './hooks.js';
import { registerHostsCommand } from './hosts.js';
import { registerInboxCommand } from './inbox.js';
import { registerMcpCommand } from './mcp.js';
import { registerPresetCommand } from './preset.js';
import { registerRespondCommand } from './respond.js';
import { registerSendCommand } from './send.js';
import { registerStartCommand } from './start.js';
import { registerStatusCommand } from './status.js';
import { registerStopCommand } from './stop.js';
import { registerTargetCommand } from './target.js';
import { registerWebCommand } from './web.js';
import { VERSION } from '../version.js';

export interface Program {
  command: Command;
  /** Parse argv (without `node` and the script) and run; resolves to the exit code. */
  run(argv: readonly string[]): Promise<number>;
}

/** Help is wrapped to this width, or a narrower terminal's. */
export const HELP_WIDTH = 80;

function helpWidth(stream: { isTTY?: boolean; columns?: number }): number {
  const columns = stream.isTTY ? stream.columns : undefined;
  return columns && columns < HELP_WIDTH ? columns : HELP_WIDTH;
}

/** Every command, in the order `macs --help` lists them. */
const COMMANDS = [
  registerStartCommand,
  registerStopCommand,
  registerAttachCommand,
  registerRestartCommand,
  registerAddCommand,
  registerPauseCommands,
  registerBridgeCommand,
  registerInboxCommand,
  registerHostsCommand,
  registerRespondCommand,
  registerDismissCommand,
  registerSendCommand,
  registerEventsCommand,
  registerUsageCommand,
  registerMcpCommand,
  registerHookCommand,
  registerHooksCommand,
  registerPresetCommand,
  registerStatusCommand,
  registerTargetCommand,
  registerWebCommand,
];

/** The `macs` command itself: its description, version, output and help width. */
function createRootCommand(deps: CliDeps): Command {
  return new Command('macs')
    .description(
      'macs: a controller agent supervises worker coding agents in tmux panes.\n' +
        "The bridge reads each worker's pane, routes its requests to an answerer and types the answer back safely.",
    )
    .version(VERSION)
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: deps.output.writeOut,
      writeErr: deps.output.writeErr,
      // Inherited by every command defined below.
      getOutHelpWidth: () => helpWidth(process.stdout),
      getErrHelpWidth: () => helpWidth(process.stderr),
    })
    .addHelpText(
      'after',
      `
Exit codes: 0 ok, 1 failure, 2 bad usage or config, 3 tmux missing or
unreachable, 130 interrupted. Every option also reads MACS_<OPTION> from the
environment (e.g. MACS_HOME, MACS_TMUX_SOCKET).`,
    );
}

/** Parse `argv` and run the action it names: its exit code (commander's: 0 or 2). */
async function parseAndRun(
  command: Command,
  argv: readonly string[],
  action: { pending?: Promise<number> },
): Promise<number> {
  delete action.pending;
  try {
    await command.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    const shown = [
      'commander.helpDisplayed',
      'commander.version',
      'commander.help',
    ];
    return shown.includes(error.code) ? 0 : 2;
  }
  const pending = action.pending as Promise<number> | undefined;
  return pending === undefined ? 0 : pending;
}

/** Build the `macs` program with injected dependencies (tests call `run`). */
export function buildProgram(deps: CliDeps): Program {
  const command = createRootCommand(deps);
  const action: { pending?: Promise<number> } = {};
  const run = (p: Promise<number>) => {
    action.pending = p;
  };
  for (const register of COMMANDS) register(command, deps, run);
  for (const sub of command.commands)
    sub.exitOverride().configureOutput({
      writeOut: deps.output.writeOut,
      writeErr: deps.output.writeErr,
    });
  return { command, run: (argv) => parseAndRun(command, argv, action) };
}
