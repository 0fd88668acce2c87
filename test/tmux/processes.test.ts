// What runs in a pane: the process table, a pane's tree, and the programs an
// argv runs (an npm-installed agent runs as `node <its script>`).
import { describe, expect, it } from 'vitest';
import {
  describeGroup,
  parsePsTable,
  parseStatGroups,
  parseStatPpid,
  processTree,
  readProcessAncestors,
  programsOf,
  readProcessTable,
  treeRunsProgram,
  type ProcessInfo,
} from '../../src/tmux/processes.js';

describe('programs of an argv', () => {
  it.each([
    [['gemini'], ['gemini']],
    [['/usr/bin/codex', 'exec'], ['codex']],
    // npm's bin link, run through its shebang
    [
      ['node', '/home/u/.npm/bin/gemini'],
      ['node', 'gemini'],
    ],
    // Gemini CLI's relaunched child with a bigger heap
    [
      [
        '/usr/bin/node',
        '--max-old-space-size=4096',
        '/usr/lib/node_modules/@google/gemini-cli/bundle/gemini.js',
      ],
      ['node', 'gemini'],
    ],
    [
      ['node', '/usr/lib/node_modules/@openai/codex/bin/codex.js'],
      ['node', 'codex'],
    ],
    [
      ['python3.12', '-m', 'aider'],
      ['python3.12', 'aider'],
    ],
    [['bash', '-c', 'gemini'], ['bash']],
    [[], []],
  ])('%j runs %j', (argv, programs) => {
    expect(programsOf(argv)).toEqual(programs);
  });
});

describe('process tables and trees', () => {
  const table: ProcessInfo[] = [
    { pid: 10, ppid: 1, argv: ['-bash'] },
    { pid: 11, ppid: 10, argv: ['node', '/x/.bin/gemini'] },
    {
      pid: 12,
      ppid: 11,
      argv: ['/usr/bin/node', '--max-old-space-size=8', '/x/bundle/gemini.js'],
    },
    { pid: 20, ppid: 1, argv: ['node', '/y/bin/codex.js'] },
    { pid: 21, ppid: 20, argv: ['/y/vendor/codex', '--yolo'] },
  ];

  it('a tree is the process and all its descendants', () => {
    expect(processTree(table, 10).map((p) => p.pid)).toEqual([10, 11, 12]);
    expect(processTree(table, 20).map((p) => p.pid)).toEqual([20, 21]);
    expect(processTree(table, 99)).toEqual([]);
  });

  it('a tree runs a program when any of its processes does', () => {
    expect(treeRunsProgram(processTree(table, 10), 'gemini')).toBe(true);
    expect(treeRunsProgram(processTree(table, 10), 'codex')).toBe(false);
    expect(treeRunsProgram(processTree(table, 20), 'codex')).toBe(true);
  });

  it('parses /proc stat lines, commands with spaces and parentheses included', () => {
    expect(parseStatPpid('4242 (node) S 4200 4242 4200 0 -1')).toBe(4200);
    expect(parseStatPpid('7 (my (odd) prog) R 1 7 7 0')).toBe(1);
  });

  it('parses ps output', () => {
    expect(
      parsePsTable('  10     1 -bash\n  11    10 node /x/.bin/gemini\n\n'),
    ).toEqual([
      { pid: 10, ppid: 1, argv: ['-bash'] },
      { pid: 11, ppid: 10, argv: ['node', '/x/.bin/gemini'] },
    ]);
  });

  it('reads the live table: this process, run by node, is in it', async () => {
    const me = (await readProcessTable()).find((p) => p.pid === process.pid);
    expect(me?.ppid).toBe(process.ppid);
    expect(programsOf(me?.argv ?? [])[0]).toMatch(/node/);
  });
});

describe('parseStatGroups', () => {
  it('reads the process group and the terminal foreground group', () => {
    expect(
      parseStatGroups('4242 (a (weird) name) S 1 4242 4242 34816 4300 4194560'),
    ).toEqual({ pgrp: 4242, tpgid: 4300 });
    expect(parseStatGroups('garbage')).toBeUndefined();
  });
});

describe('readProcessAncestors', () => {
  it('walks from a process up through its parents (this one, then its parent)', async () => {
    const chain = await readProcessAncestors(process.pid);
    expect(chain[0]?.pid).toBe(process.pid);
    expect(chain[0]?.argv[0]).toBeTruthy();
    expect(chain[1]?.pid).toBe(process.ppid);
    expect(chain.every((p, i) => i === 0 || p.pid === chain[i - 1]?.ppid)).toBe(
      true,
    );
  });
});

describe('describeGroup', () => {
  const proc = (pid: number, argv: string[]): ProcessInfo => ({
    pid,
    ppid: 1,
    argv,
  });

  it('names the leader, without its folder', () => {
    expect(
      describeGroup([proc(7, ['sh']), proc(9, ['/bin/sleep', '30'])], 9),
    ).toBe('sleep 30');
  });

  it('passes over an ended process not yet reaped (no command line)', () => {
    // A loop's `sleep` that has just ended, and the next one already started.
    expect(
      describeGroup([proc(9, []), proc(11, ['/usr/bin/sleep', '0.2'])], 9),
    ).toBe('sleep 0.2');
  });

  it('says ? when no process of the group has a command line', () => {
    expect(describeGroup([proc(9, [])], 9)).toBe('?');
    expect(describeGroup([])).toBe('?');
  });
});
