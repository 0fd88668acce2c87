// `macs preset test`: its flags; the command itself is loaded when it runs.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import type { CliDeps } from '../options.js';

export function registerPresetCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  const preset = program
    .command('preset')
    .description('tools for preset authors');
  preset
    .command('test')
    .description(
      'print the state each screen capture (tmux capture-pane -p output) classifies as',
    )
    .argument(
      '<preset>',
      'a built-in preset name (codex, claude, gemini, aider, pi, shell, generic)',
    )
    .argument('<files...>', 'screen capture files')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nExample:\n  tmux capture-pane -p -t %3 > screen.txt && macs preset test claude screen.txt',
    )
    .action((name: string, files: string[], opts: { json?: boolean }) =>
      run(
        import('../preset.js').then((m) =>
          m.runPresetTest(
            { preset: name, files, ...(opts.json ? { json: true } : {}) },
            {
              readFile: (p: string) =>
                readFile(path.resolve(deps.cwd, p), 'utf8'),
              out: deps.output.out,
            },
          ),
        ),
      ),
    );
}
