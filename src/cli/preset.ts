/**
 * `macs preset test <preset> <file>...`: print the state each screen capture
 * classifies as, for people writing presets: its flags, and the plain
 * function they call.
 */
// Only the flags load with the program (`macs --help` starts at once);
// what the run needs is imported when it runs.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import type { CaptureVerdict } from '../screen/classify-captures.js';
import type { CliDeps } from './options.js';

export interface PresetTestOptions {
  preset: string;
  files: string[];
  json?: boolean;
  /** Custom presets from the config (`presets` in macs.config.json). */
  custom?: Record<string, unknown>;
}

export interface PresetTestDeps {
  readFile: (path: string) => Promise<string>;
  out: (line: string) => void;
}

/** `<file>: <state> (<rule>)`, or the file's error. */
function formatLine(result: CaptureVerdict): string {
  if (result.error !== undefined)
    return `${result.file}: error: ${result.error}`;
  const state = result.state ?? 'unknown';
  return result.rule === null
    ? `${result.file}: ${state}`
    : `${result.file}: ${state} (${result.rule})`;
}

/**
 * Classify each file with the preset and print `<file>: <state> (<rule>)`
 * per file, or one JSON array with `--json`. Resolves to 0, or 1 when a file
 * could not be read (the others are still reported). An unknown or invalid
 * preset throws a ConfigError (exit 2) whose hint lists the known presets.
 */
export async function runPresetTest(
  opts: PresetTestOptions,
  deps: PresetTestDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const { classifyCaptures } = await import('../screen/classify-captures.js');
  const results = await classifyCaptures(
    opts.preset,
    opts.custom,
    opts.files,
    deps.readFile,
  );
  if (opts.json) {
    deps.out(JSON.stringify(results, null, 2));
  } else {
    for (const result of results) deps.out(formatLine(result));
  }
  return results.some((result) => result.error !== undefined) ? 1 : 0;
}

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
        runPresetTest(
          { preset: name, files, ...(opts.json ? { json: true } : {}) },
          {
            readFile: (p: string) =>
              readFile(path.resolve(deps.cwd, p), 'utf8'),
            out: deps.output.out,
          },
        ),
      ),
    );
}
