// Bug (issue 29): `macs --help` printed lines of 99 columns, `respond` 103,
// `bridge` 98, `start` 90, `dismiss` 82: texts added after commander's own
// (examples, exit codes) were never wrapped, and commander wraps the rest to
// the terminal's width, however wide. Strategy: run `--help` of every
// command and subcommand, found by walking the program's own command tree
// (a command added later is checked too), as on a 200-column terminal, and
// check each line is at most 80 columns; likewise the README's command list.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliDeps } from '../../src/cli/options.js';
import { createMemoryOutput } from '../../src/cli/output.js';
import { buildProgram } from '../../src/cli/program.js';
import { REPO_ROOT } from '../helpers/macs.js';

const MAX_COLUMNS = 80;

function makeDeps() {
  const output = createMemoryOutput();
  const deps: CliDeps = {
    output,
    env: {},
    cwd: REPO_ROOT,
    runTmux: () => Promise.reject(new Error('no tmux in this test')),
    readStdin: () => Promise.resolve(''),
    stdinIsTTY: false,
    interrupted: new Promise(() => undefined),
  };
  return { deps, output };
}

/** Every command path: [], ['start'], ['hooks', 'install'], ... */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return [
    prefix,
    ...command.commands.flatMap((sub) =>
      commandPaths(sub, [...prefix, sub.name()]),
    ),
  ];
}

describe('--help fits 80 columns', () => {
  // Commander wraps to the terminal's width: pretend a wide one.
  const stdout = process.stdout as { isTTY?: boolean; columns?: number };
  const saved = { isTTY: stdout.isTTY, columns: stdout.columns };
  beforeEach(() => {
    stdout.isTTY = true;
    stdout.columns = 200;
  });
  afterEach(() => {
    stdout.isTTY = saved.isTTY;
    stdout.columns = saved.columns;
  });

  const paths = commandPaths(buildProgram(makeDeps().deps).command);

  it('walks every command', () => {
    expect(paths.length).toBeGreaterThan(20);
    expect(paths).toContainEqual(['hooks', 'install']);
  });

  it.each(paths.map((p) => [p.join(' ') || '(macs)', p] as const))(
    'macs %s --help',
    async (_name, commandPath) => {
      const { deps, output } = makeDeps();
      const code = await buildProgram(deps).run([...commandPath, '--help']);
      expect(code).toBe(0);
      const lines = output.stdout.join('').split('\n');
      expect(lines.length).toBeGreaterThan(3);
      const wide = lines.filter((line) => line.length > MAX_COLUMNS);
      expect(wide).toEqual([]);
    },
  );

  it("the README's command list", () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('\n## Commands\n');
    const end = readme.indexOf('\n## ', start + 1);
    expect(start).toBeGreaterThan(0);
    const section = readme.slice(start, end === -1 ? undefined : end);
    const list = section
      .split('\n')
      .filter((line) => line.includes('`macs '))
      .filter((line) => /^\s*([-*|]|\d+\.)/.test(line));
    expect(list.length).toBeGreaterThan(20);
    expect(list.filter((line) => line.length > MAX_COLUMNS)).toEqual([]);
  });
});
