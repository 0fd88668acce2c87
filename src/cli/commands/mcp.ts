// `macs mcp`: its flags; the command itself (and the MCP SDK) is loaded when it runs.
import { Option, type Command } from 'commander';
import { addCommonOptions, type CliDeps } from '../options.js';
import type { McpOptions } from '../mcp.js';

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
  ).action((opts: McpOptions) =>
    run(import('../mcp.js').then((m) => m.runMcp(opts, deps))),
  );
}
