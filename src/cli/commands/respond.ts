// `macs respond`: its flags; the command itself is loaded when it runs.
import type { Command } from 'commander';
import { addCommonOptions, type CliDeps } from '../options.js';
import type { RespondOptions } from '../respond.js';

export function registerRespondCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('respond')
      .description(
        'answer a pending request (writes outbox/<id>.txt, which the bridge delivers)',
      )
      .argument('<id>', 'the request id, as `macs inbox` lists it')
      .argument(
        '[text]',
        'the answer; `-` (or no text with piped stdin) reads stdin',
      )
      .option('--file <file>', 'read the answer from a file')
      .option(
        '--force',
        'write even if the request is not pending or already answered',
      )
      .addHelpText(
        'after',
        `
The answer may hold a "WORKER INSTRUCTIONS:" part (sent to the worker) and a
"NOTES:" part (kept for people, never sent). Text without headers is all
instructions.

Examples:
  macs respond worker-1-q-17 "Migrate after the API change."
  macs respond worker-1-q-17 --file answer.md
  printf 'WORKER INSTRUCTIONS:\\nGo ahead.\\n\\nNOTES:\\nWatch the tests.\\n' |
    macs respond worker-1-q-17 -`,
      ),
  ).action((id: string, text: string | undefined, opts: RespondOptions) =>
    run(
      import('../respond.js').then((m) => m.runRespond(id, text, opts, deps)),
    ),
  );
}
