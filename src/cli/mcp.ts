// `macs mcp`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import { Option, type Command } from 'commander';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';

export interface McpOptions extends CommonOptions {
  /** Run by a hub over ssh (docs/remote.md): serve only a macs home. */
  fromHub?: boolean;
}

/**
 * `macs mcp`: serve the controller's tools over MCP on stdin/stdout until
 * the client closes stdin or the process is interrupted (mcp/serve-stdio.ts).
 * Nothing else is written to stdout (it carries the protocol); the
 * developer log goes to `.macs/macs.log`.
 */
export async function runMcp(
  opts: McpOptions,
  deps: CliDeps,
  streams: {
    stdin: NodeJS.ReadableStream;
    stdout: NodeJS.WritableStream;
  } = { stdin: process.stdin, stdout: process.stdout },
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [{ VERSION }, { createContext }, { assertHubHome }] = await Promise.all(
    [
      import('../version.js'),
      import('./common.js'),
      import('../home/open-home.js'),
    ],
  );
  const ctx = createContext(opts, deps);
  if (opts.fromHub) assertHubHome(ctx.paths);
  const { config } = await ctx.loadConfig();
  const { serveMcpOnStdio } = await import('../mcp/serve-stdio.js');
  const how = await serveMcpOnStdio({
    ...{ paths: ctx.paths, log: ctx.log, config, env: deps.env },
    runTmux: deps.runTmux,
    ...(opts.tmuxSocket ? { socket: opts.tmuxSocket } : {}),
    version: VERSION,
    ...(opts.fromHub ? { forHub: true } : {}),
    ...streams,
    interrupted: deps.interrupted,
  });
  return how === 'SIGINT' ? 130 : 0;
}

export function registerMcpCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('mcp')
      .description(
        "serve the controller's tools over MCP on stdin/stdout (list_agents, list_requests, get_request, read_screen, answer_request, decide_approval, send_message, wait_for_request)",
      )
      .addOption(
        new Option(
          '--from-hub',
          '(run by a hub) serve only a macs home; the hub reads are no events',
        ).hideHelp(),
      )
      .addHelpText(
        'after',
        `
An MCP client (Claude Code, Codex, Gemini CLI) starts it as a stdio server;
it serves one macs home, found as every command finds it (--home, MACS_HOME,
or the nearest folder holding .macs/). Every tool call is recorded as an
mcp.call event. See docs/mcp.md.

Examples:
  claude mcp add macs -- macs mcp --home ~/project
  macs mcp --home ~/project     # speaks JSON-RPC on stdin/stdout`,
      ),
  ).action((opts: McpOptions) => run(runMcp(opts, deps)));
}
