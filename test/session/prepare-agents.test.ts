import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRunGit } from '../../src/backends/git.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { MacsError } from '../../src/errors.js';
import { planAgents } from '../../src/session/plan.js';
import {
  headlessEnvOf,
  isProgramOnPath,
  prepareAgents,
} from '../../src/session/prepare-agents.js';

describe('prepareAgents', () => {
  let home: string;
  let bin: string;

  beforeEach(() => {
    home = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'macs-prepare-')));
    bin = path.join(home, 'bin');
    mkdirSync(bin);
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  function script(file: string, mode = 0o755): void {
    writeFileSync(file, '#!/bin/sh\n');
    chmodSync(file, mode);
  }

  function plan(workers: Record<string, unknown>[]) {
    return planAgents(ConfigSchema.parse({ workers }), home);
  }

  it('keeps each folder, and warns about programs that cannot run', async () => {
    script(path.join(bin, 'tool'));
    script(path.join(bin, 'plain'), 0o644);
    script(path.join(home, 'run.sh'));
    const { agents, warnings } = await prepareAgents({
      agents: plan([
        { name: 'a', command: 'tool --flag' },
        { name: 'b', command: ['plain'] },
        { name: 'c', command: './run.sh' },
        { name: 'd', command: './missing.sh' },
      ]),
      worktreesDir: path.join(home, 'worktrees'),
      env: { PATH: bin },
    });
    expect(agents.map((a) => [a.name, a.cwd, a.tree])).toEqual([
      ['a', home, undefined],
      ['b', home, undefined],
      ['c', home, undefined],
      ['d', home, undefined],
    ]);
    expect(warnings).toEqual([
      "b: 'plain' was not found on PATH; its pane will say so and the agent will show as dead",
      "d: './missing.sh' was not found on PATH; its pane will say so and the agent will show as dead",
    ]);
  });

  it('refuses an agent whose folder does not exist', async () => {
    const error: unknown = await prepareAgents({
      agents: plan([{ name: 'a', command: 'tool', cwd: 'nowhere' }]),
      worktreesDir: path.join(home, 'worktrees'),
      env: { PATH: bin },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MacsError);
    expect((error as MacsError).message).toBe(
      `agent 'a': folder ${path.join(home, 'nowhere')} does not exist`,
    );
    expect((error as MacsError).hint).toBe('fix its "cwd" in macs.config.json');
  });

  it("warns when the environment makes a preset start headless, unless the agent's env says otherwise", async () => {
    script(path.join(bin, 'gemini'));
    const { warnings } = await prepareAgents({
      agents: plan([
        { name: 'g', command: 'gemini' },
        { name: 'h', command: 'gemini', env: { CI: 'false' } },
        { name: 'i', command: 'tool', env: { CI: 'true' } },
      ]),
      worktreesDir: path.join(home, 'worktrees'),
      env: { PATH: bin, CI: 'true', GITHUB_ACTIONS: 'true' },
    });
    expect(warnings).toEqual([
      'g: CI=true and GITHUB_ACTIONS=true in the environment makes Gemini CLI start without its screen and exit; unset CI and GITHUB_ACTIONS before macs start (or set it in the agent\'s "env" to false)',
      'h: GITHUB_ACTIONS=true in the environment makes Gemini CLI start without its screen and exit; unset GITHUB_ACTIONS before macs start (or set it in the agent\'s "env" to false)',
      "i: 'tool' was not found on PATH; its pane will say so and the agent will show as dead",
    ]);
  });

  it('gives a worktree worker its worktree, in the same subfolder when the worktree has it (real git)', async () => {
    const repo = path.join(home, 'repo');
    mkdirSync(path.join(repo, 'pkg'), { recursive: true });
    writeFileSync(path.join(repo, 'pkg', 'a.txt'), 'a\n');
    mkdirSync(path.join(repo, 'untracked'));
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    git('init', '-q');
    git('add', 'pkg');
    git(
      ...['-c', 'user.email=t@example.com', '-c', 'user.name=t'],
      ...['commit', '-q', '-m', 'init'],
    );
    const worktreesDir = path.join(home, 'worktrees');
    const { agents } = await prepareAgents({
      agents: plan([
        { name: 'w1', command: 'sh', cwd: 'repo/pkg', worktree: true },
        { name: 'w2', command: 'sh', cwd: 'repo/untracked', worktree: true },
      ]),
      worktreesDir,
      env: { PATH: bin },
      runGit: createRunGit(),
    });
    expect(agents.map((a) => [a.name, a.cwd, a.tree])).toEqual([
      [
        'w1',
        path.join(worktreesDir, 'w1', 'pkg'),
        { path: path.join(worktreesDir, 'w1'), branch: 'macs/w1' },
      ],
      [
        'w2',
        path.join(worktreesDir, 'w2'),
        { path: path.join(worktreesDir, 'w2'), branch: 'macs/w2' },
      ],
    ]);
  });
});

describe('isProgramOnPath and headlessEnvOf', () => {
  it('finds a program by name on PATH, or by its path from cwd', async () => {
    const env = { PATH: ['/nonexistent', '/bin', ''].join(path.delimiter) };
    expect(await isProgramOnPath('sh', env, '/')).toBe(true);
    expect(await isProgramOnPath('no-such-program-xyz', env, '/')).toBe(false);
    expect(await isProgramOnPath('sh', {}, '/')).toBe(false);
    expect(await isProgramOnPath('./sh', {}, '/bin')).toBe(true);
    expect(await isProgramOnPath('/bin/sh', {}, '/tmp')).toBe(true);
  });

  it('names only the variables set to exactly "true"', () => {
    const keys = ['CI', 'GITHUB_ACTIONS', 'OTHER'];
    expect(
      headlessEnvOf(keys, { CI: 'true', GITHUB_ACTIONS: '1', OTHER: 'true' }),
    ).toEqual(['CI', 'OTHER']);
    expect(headlessEnvOf([], { CI: 'true' })).toEqual([]);
  });
});
