import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { RunGit } from '../backends/git.js';
import { ConfigError, MacsError } from '../errors.js';
import { ensurePrivateDir } from '../home/fs.js';

/** The branch a worker's worktree is on. */
export function worktreeBranch(agent: string): string {
  return `macs/${agent}`;
}

export interface Worktree {
  /** The worktree's root folder. */
  path: string;
  branch: string;
  /** The folder the agent starts in (the worktree path plus cwd's place in the repo). */
  cwd: string;
  created: boolean;
}

async function git(
  run: RunGit,
  args: string[],
  cwd: string,
  what: string,
): Promise<string> {
  const result = await run(args, cwd);
  if (result.exitCode !== 0) {
    throw new MacsError(
      `${what} failed: git ${args.join(' ')}: ${result.stderr.trim() || `exit ${result.exitCode}`}`,
      {
        hint: 'fix the repository state shown above, or set "worktree": false',
      },
    );
  }
  return result.stdout.trim();
}

async function isDir(dir: string): Promise<boolean> {
  return stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/**
 * Give a worker its own git worktree at `<worktreesDir>/<agent>` on branch
 * `macs/<agent>`, so parallel workers never edit the same files. An existing
 * worktree there is reused as it is; an existing branch is checked out; a
 * new branch starts at the repository's HEAD.
 */
export async function ensureWorktree(options: {
  runGit: RunGit;
  agent: string;
  /** The agent's configured folder; it must be inside a git repository. */
  cwd: string;
  worktreesDir: string;
}): Promise<Worktree> {
  const { runGit: run, agent, cwd, worktreesDir } = options;
  const branch = worktreeBranch(agent);
  if (!(await isDir(cwd)))
    throw new ConfigError(`agent '${agent}': folder ${cwd} does not exist`);
  const probe = await run(['rev-parse', '--show-toplevel'], cwd);
  if (probe.exitCode !== 0) {
    throw new ConfigError(
      `agent '${agent}' has "worktree": true, but ${cwd} is not in a git repository`,
      {
        hint: 'run macs in a git repository (git init && git commit), set the agent\'s "cwd" to one, or set "worktree": false',
      },
    );
  }
  const top = await realpath(probe.stdout.trim());
  const inside = path.relative(top, await realpath(cwd));
  const target = path.join(worktreesDir, agent);
  const within = (root: string) =>
    inside && !inside.startsWith('..') ? path.join(root, inside) : root;

  if (await isDir(target)) {
    const own = await run(['rev-parse', '--show-toplevel'], target);
    if (
      own.exitCode !== 0 ||
      (await realpath(own.stdout.trim())) !== (await realpath(target))
    ) {
      throw new MacsError(
        `${target} exists but is not a git worktree; macs will not touch it`,
        { hint: 'move it away, then start again' },
      );
    }
    const current = await git(
      run,
      ['rev-parse', '--abbrev-ref', 'HEAD'],
      target,
      'reading the worktree branch',
    );
    return {
      path: target,
      branch: current,
      cwd: within(target),
      created: false,
    };
  }

  await ensurePrivateDir(worktreesDir);
  // A worktree folder deleted by hand leaves a stale entry that blocks the branch.
  await run(['worktree', 'prune'], top);
  const head = await run(['rev-parse', '--verify', '--quiet', 'HEAD'], top);
  if (head.exitCode !== 0) {
    throw new ConfigError(
      `agent '${agent}' has "worktree": true, but the repository ${top} has no commit yet`,
      {
        hint: 'make a first commit (git commit --allow-empty -m init), then start again',
      },
    );
  }
  const exists =
    (
      await run(
        ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`],
        top,
      )
    ).exitCode === 0;
  await git(
    run,
    exists
      ? ['worktree', 'add', target, branch]
      : ['worktree', 'add', '-b', branch, target, 'HEAD'],
    top,
    `creating the worktree of ${agent}`,
  );
  // The branch it starts from, for an unattended worker's merge when it is
  // done (bridge/route/unattended.ts); kept by git with the branch.
  const base = (
    await run(['symbolic-ref', '--quiet', '--short', 'HEAD'], top)
  ).stdout.trim();
  if (!exists && base)
    await run(['config', `branch.${branch}.macs-base`, base], top);
  return { path: target, branch, cwd: within(target), created: true };
}
