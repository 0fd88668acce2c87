// `macs hook`: its flags; the command itself is loaded when it runs.
import { Option, type Command } from 'commander';
import type { CliDeps } from '../options.js';
import type { HookOptions } from '../hook.js';

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
      new Option(
        '--agent <name>',
        'the agent (default: found by $TMUX_PANE)',
      ).env('MACS_AGENT'),
    )
    .addOption(
      new Option(
        '--home <dir>',
        'the macs home (default: current directory)',
      ).env('MACS_HOME'),
    )
    .addOption(new Option('--config <file>', 'config file').env('MACS_CONFIG'))
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
      run(
        import('../hook.js').then((m) =>
          m.runHookCommand(event, payload, opts, deps),
        ),
      ),
    );
}
