import { execFileSync } from 'node:child_process';
import {
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
import { ensureWorktree } from '../../src/session/worktree.js';

describe('worker worktrees (real git)', () => {
  let repo: string;
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
  const runGit = createRunGit();

  beforeEach(() => {
    repo = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'macs-wt-')));
    git('init', '-q');
    mkdirSync(path.join(repo, 'pkg'));
    writeFileSync(path.join(repo, 'pkg', 'a.txt'), 'a\n');
    git('add', '.');
    git(
      '-c',
      'user.email=t@example.com',
      '-c',
      'user.name=t',
      'commit',
      '-q',
      '-m',
      'init',
    );
  });
  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  it('creates one worktree per worker on macs/<name>, starting in the same subfolder, and reuses it', async () => {
    const worktreesDir = path.join(repo, '.macs', 'worktrees');
    const first = await ensureWorktree({
      runGit,
      agent: 'w1',
      cwd: path.join(repo, 'pkg'),
      worktreesDir,
    });
    expect(first).toEqual({
      path: path.join(worktreesDir, 'w1'),
      branch: 'macs/w1',
      cwd: path.join(worktreesDir, 'w1', 'pkg'),
      created: true,
    });
    const second = await ensureWorktree({
      runGit,
      agent: 'w2',
      cwd: repo,
      worktreesDir,
    });
    expect(second.path).not.toBe(first.path);
    expect(
      execFileSync('git', ['branch', '--show-current'], {
        cwd: second.path,
        encoding: 'utf8',
      }).trim(),
    ).toBe('macs/w2');
    writeFileSync(path.join(first.path, 'pkg', 'b.txt'), 'work in progress\n');
    const again = await ensureWorktree({
      runGit,
      agent: 'w1',
      cwd: repo,
      worktreesDir,
    });
    expect(again).toMatchObject({
      path: first.path,
      branch: 'macs/w1',
      created: false,
    });
    // A worktree removed by hand: its branch is checked out again.
    rmSync(first.path, { recursive: true, force: true });
    const back = await ensureWorktree({
      runGit,
      agent: 'w1',
      cwd: repo,
      worktreesDir,
    });
    expect(back).toMatchObject({ branch: 'macs/w1', created: true });
  });

  it('refuses a folder outside git, a repository without commits, and a stranger folder in its place', async () => {
    const plain = realpathSync(
      mkdtempSync(path.join(os.tmpdir(), 'macs-nogit-')),
    );
    try {
      await expect(
        ensureWorktree({
          runGit,
          agent: 'w',
          cwd: plain,
          worktreesDir: path.join(plain, 'wt'),
        }),
      ).rejects.toThrow(/not in a git repository/);
      execFileSync('git', ['init', '-q'], { cwd: plain });
      await expect(
        ensureWorktree({
          runGit,
          agent: 'w',
          cwd: plain,
          worktreesDir: path.join(plain, 'wt'),
        }),
      ).rejects.toThrow(/no commit yet/);
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
    const worktreesDir = path.join(repo, 'wt');
    mkdirSync(path.join(worktreesDir, 'w'), { recursive: true });
    await expect(
      ensureWorktree({ runGit, agent: 'w', cwd: repo, worktreesDir }),
    ).rejects.toThrow(/not a git worktree/);
  });
});
