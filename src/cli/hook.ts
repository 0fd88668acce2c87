// `macs hook`: what agent hooks call. Its flags, for `macs --help`, and the
// command. main.ts runs it without commander on every hook call
// (cli/hook-argv.ts), so nothing here loads commander or the hook runner
// until it is needed.
import type { Command } from 'commander';
import type { CliDeps } from './options.js';

export interface HookOptions {
  home?: string;
  agent?: string;
  config?: string;
}

export function registerHookCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  program
    .command('hook')
    .description(
      "entry point that agent hooks call: reads the hook's JSON, records it, answers in the agent's protocol",
    )
    .argument(
      '<event>',
      'SessionStart, UserPromptSubmit, Stop, Notification, PermissionRequest, PreToolUse (Claude Code), or notify (Codex)',
    )
    .argument(
      '[payload]',
      'the JSON, when the agent passes it as an argument (Codex notify)',
    )
    .addOption(
      program
        .createOption(
          '--agent <name>',
          'the agent (default: found by $TMUX_PANE)',
        )
        .env('MACS_AGENT'),
    )
    .addOption(
      program
        .createOption(
          '--home <dir>',
          'the macs home (default: current directory)',
        )
        .env('MACS_HOME'),
    )
    .addOption(
      program.createOption('--config <file>', 'config file').env('MACS_CONFIG'),
    )
    // A hook must never fail on a flag it does not know (a newer settings file).
    .allowUnknownOption()
    .allowExcessArguments()
    .addHelpText(
      'after',
      `
Agents call this, not people: \`macs hooks install\` and \`macs start\` set it up.
It always exits 0 and prints only the agent's reply; problems are recorded as
error events (\`macs events --type error\`). See docs/hooks.md.`,
    )
    .action((event: string, payload: string | undefined, opts: HookOptions) =>
      run(runHookCommand(event, payload, opts, deps)),
    );
}

/**
 * `macs hook <event> [payload]`: what agent hooks call. Always exits 0: the
 * reply (if any) is the only thing printed, and every problem is an `error`
 * event instead (docs/hooks.md).
 */
export async function runHookCommand(
  event: string,
  payload: string | undefined,
  opts: HookOptions,
  deps: Pick<CliDeps, 'output' | 'env' | 'cwd' | 'readStdin' | 'stdinIsTTY'>,
): Promise<number> {
  const { runHook } = await import('../hooks/runner.js');
  await runHook(
    {
      event,
      ...(payload !== undefined ? { payload } : {}),
      ...(opts.home ? { home: opts.home } : {}),
      ...(opts.agent !== undefined ? { agent: opts.agent } : {}),
      ...(opts.config ? { config: opts.config } : {}),
    },
    {
      env: deps.env,
      cwd: deps.cwd,
      readStdin: deps.readStdin,
      stdinIsTTY: deps.stdinIsTTY,
      write: (line) => deps.output.out(line),
    },
  );
  return 0;
}
