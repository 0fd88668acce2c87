// Unattended runs (issue 32): which agents run unattended, what each kind
// of request is answered, and the merge of a done worker's branch into the
// branch it started from. Strategy: the pure rules directly; the merge
// with real git in a temporary repository (a clean merge, a conflict, a
// dirty worktree, nothing new), never a mocked git.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRunGit } from '../../../src/backends/git.js';
import { DEFAULT_NON_INTERACTIVE_ANSWER } from '../../../src/config/schema.js';
import { resolveHomePaths } from '../../../src/home/paths.js';
import {
  isNonInteractive,
  mergeWorktree,
  unattendedOutcome,
} from '../../../src/bridge/route/unattended.js';
import { deciderOf } from '../../../src/protocol/approval.js';
import { ensureWorktree } from '../../../src/session/worktree.js';

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

describe('who runs unattended', () => {
  const worker = (name: string, nonInteractive?: boolean) =>
    ({
      name,
      ...(nonInteractive === undefined ? {} : { nonInteractive }),
    }) as never;
  it('the session key, unless the worker says otherwise', () => {
    const config = {
      nonInteractive: true,
      workers: [worker('a'), worker('b', false)],
    };
    expect(isNonInteractive(config, 'a')).toBe(true);
    expect(isNonInteractive(config, 'b')).toBe(false);
    expect(
      isNonInteractive(
        { nonInteractive: false, workers: [worker('c', true)] },
        'c',
      ),
    ).toBe(true);
  });

  it('its answers are decided by the rule non-interactive', () => {
    expect(deciderOf('rule:non-interactive')).toEqual({
      decidedBy: 'rule',
      via: 'non-interactive',
    });
  });
});

describe('unattended answers', () => {
  const deps = {
    config: { nonInteractiveAnswer: DEFAULT_NON_INTERACTIVE_ANSWER },
    paths: resolveHomePaths('/nonexistent-macs-home'),
    runGit: createRunGit(gitEnv),
  };
  it('a question gets the configured text; an approval and an appeal are refused', async () => {
    expect(
      await unattendedOutcome({ agent: 'w', type: 'question' }, deps),
    ).toEqual({ type: 'answer', text: DEFAULT_NON_INTERACTIVE_ANSWER });
    const approval = await unattendedOutcome(
      { agent: 'w', type: 'approval' },
      deps,
    );
    expect(approval).toMatchObject({ text: expect.stringMatching(/^deny: /) });
    const appeal = await unattendedOutcome(
      { agent: 'w', type: 'appeal' },
      deps,
    );
    expect(appeal).toMatchObject({ text: expect.stringMatching(/^uphold: /) });
  });

  it('done without a worktree of its own merges nothing', async () => {
    const done = await unattendedOutcome({ agent: 'w', type: 'done' }, deps);
    expect(done).toMatchObject({
      type: 'answer',
      text: expect.stringContaining('no worktree'),
    });
  });
});

describe('merging a done worker', () => {
  let repo: string;
  const run = createRunGit(gitEnv);
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' }).trim();

  beforeEach(() => {
    repo = mkdtempSync(path.join(os.tmpdir(), 'macs-merge-'));
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(repo, 'a.txt'), 'one\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'init');
  });
  afterEach(() => {
    rmSync(repo, { recursive: true, force: true });
    rmSync(`${repo}-trees`, { recursive: true, force: true });
  });

  async function tree(agent: string): Promise<string> {
    const made = await ensureWorktree({
      runGit: run,
      agent,
      cwd: repo,
      worktreesDir: path.join(`${repo}-trees`),
    });
    return made.path;
  }

  it('merges cleanly into the branch it started from, checked out there', async () => {
    const w = await tree('w1');
    writeFileSync(path.join(w, 'b.txt'), 'two\n');
    git(w, 'add', '.');
    git(w, 'commit', '-qm', 'b');
    const result = await mergeWorktree(run, w);
    expect(result).toMatchObject({
      type: 'merged',
      branch: 'macs/w1',
      base: 'main',
    });
    expect(git(repo, 'show', 'main:b.txt')).toBe('two');
    expect(await mergeWorktree(run, w)).toMatchObject({ type: 'up-to-date' });
  });

  it('merges into a base that is checked out nowhere by writing the commit', async () => {
    const w = await tree('w1');
    git(repo, 'checkout', '-q', '-b', 'other');
    writeFileSync(path.join(w, 'b.txt'), 'two\n');
    git(w, 'add', '.');
    git(w, 'commit', '-qm', 'b');
    expect(await mergeWorktree(run, w)).toMatchObject({
      type: 'merged',
      base: 'main',
    });
    expect(git(repo, 'show', 'main:b.txt')).toBe('two');
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('reports a conflict and touches nothing', async () => {
    const w = await tree('w1');
    writeFileSync(path.join(w, 'a.txt'), 'theirs\n');
    git(w, 'commit', '-qam', 'theirs');
    writeFileSync(path.join(repo, 'a.txt'), 'ours\n');
    git(repo, 'commit', '-qam', 'ours');
    const before = git(repo, 'rev-parse', 'main');
    expect(await mergeWorktree(run, w)).toEqual({
      type: 'conflict',
      branch: 'macs/w1',
      base: 'main',
      files: ['a.txt'],
    });
    expect(git(repo, 'rev-parse', 'main')).toBe(before);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  // Bug: where the base is checked out nowhere, the merge's tree was
  // computed against the base as it was (`git merge-tree … main …`), but the
  // base's commit was read again afterwards as the new commit's parent and
  // as the old value for `git update-ref`. A second bridge process (bridges
  // started per worker) that merged in between had its work dropped: the
  // commit's tree lacked it and update-ref accepted the move. Strategy: real
  // git; after the merge-tree call another merge lands on main (what the
  // other bridge does), then the merge goes on. Fixed: the base is read
  // once, before the check, so the move is refused and reported, and the
  // other merge's work stays.
  it('never drops a merge another bridge made into the base meanwhile', async () => {
    const w = await tree('w1');
    const other = await tree('w2');
    git(repo, 'checkout', '-q', '-b', 'elsewhere');
    writeFileSync(path.join(w, 'b.txt'), 'two\n');
    git(w, 'add', '.');
    git(w, 'commit', '-qm', 'b');
    writeFileSync(path.join(other, 'c.txt'), 'three\n');
    git(other, 'add', '.');
    git(other, 'commit', '-qm', 'c');
    let landed = false;
    const racing: typeof run = async (args, cwd) => {
      const result = await run(args, cwd);
      if (args[0] === 'merge-tree' && !landed) {
        landed = true;
        expect(await mergeWorktree(run, other)).toMatchObject({
          type: 'merged',
        });
      }
      return result;
    };
    const result = await mergeWorktree(racing, w);
    expect(landed).toBe(true);
    // The other merge's work is on main whatever happened to this one.
    expect(git(repo, 'show', 'main:c.txt')).toBe('three');
    expect(result).toMatchObject({ type: 'failed', base: 'main' });
    // Asked again, it merges on top.
    expect(await mergeWorktree(run, w)).toMatchObject({ type: 'merged' });
    expect(git(repo, 'show', 'main:b.txt')).toBe('two');
    expect(git(repo, 'show', 'main:c.txt')).toBe('three');
  });

  it('asks for a commit first when the worktree has changes', async () => {
    const w = await tree('w1');
    writeFileSync(path.join(w, 'c.txt'), 'loose\n');
    expect(await mergeWorktree(run, w)).toMatchObject({
      type: 'dirty',
      files: ['c.txt'],
    });
  });
});
