/**
 * Unattended runs (docs/unattended.md, MACA's non-interactive mode): a
 * worker that runs with `nonInteractive` has every request answered at
 * once, with nobody asked, and recorded as decided by the rule
 * `non-interactive` (source `rule:non-interactive`):
 *
 * - an approval (a worker's own, a hook's or a dialog's that no rule of the
 *   config decided) or an appeal is refused, with the reason;
 * - `done` from a worker in its own worktree (`.macs/worktrees/<agent>`)
 *   merges its branch into the branch it started from when that merges
 *   cleanly; a conflict is reported (`merge.conflict`) and the request goes
 *   to a person;
 * - anything else (a question, a review) gets `nonInteractiveAnswer`.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { BackendRequest } from '../../backends/types.js';
import type { RunGit } from '../../backends/git.js';
import type { MacsConfig } from '../../config/schema.js';
import type { HomePaths } from '../../home/paths.js';

/** The source every unattended answer carries (protocol/approval.ts deciderOf). */
export const NON_INTERACTIVE_SOURCE = 'rule:non-interactive';

/** Pure: does this agent run unattended? Its own key wins over the session's. */
export function isNonInteractive(
  config: Pick<MacsConfig, 'nonInteractive' | 'workers'>,
  agent: string,
): boolean {
  const own = config.workers.find((w) => w.name === agent)?.nonInteractive;
  return own ?? config.nonInteractive;
}

export type UnattendedOutcome =
  | { type: 'answer'; text: string; data?: Record<string, unknown> }
  | { type: 'person'; message: string; data: Record<string, unknown> };

/** Pure: the refusal of an approval or an appeal nobody can decide. */
export function unattendedRefusal(type: string): string {
  return type === 'appeal'
    ? 'uphold: you run unattended (macs non-interactive mode) and nobody can hear an appeal now; the denial stands. Go on without that call, or stop and say why you cannot.'
    : 'deny: you run unattended (macs non-interactive mode) and no rule of the config allows this, so nobody can approve it now. Go on without it, or stop and say why you cannot.';
}

/** How a merge of a worker's branch went. */
export type MergeResult =
  | { type: 'merged'; branch: string; base: string; commit: string }
  | { type: 'up-to-date'; branch: string; base: string }
  | { type: 'dirty'; branch: string; files: string[] }
  | { type: 'conflict'; branch: string; base: string; files: string[] }
  | { type: 'failed'; branch: string; base?: string; why: string };

async function isDir(dir: string): Promise<boolean> {
  return stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/** The git config key that records a worktree branch's base (session/worktree.ts). */
export function baseConfigKey(branch: string): string {
  return `branch.${branch}.macs-base`;
}

/** Pure: `git worktree list --porcelain` as folder → branch. */
export function parseWorktreeList(
  text: string,
): { path: string; branch?: string }[] {
  const out: { path: string; branch?: string }[] = [];
  for (const block of text.split(/\n\n+/)) {
    const lines = block.split('\n');
    const dir = lines.find((l) => l.startsWith('worktree '));
    if (!dir) continue;
    const ref = lines.find((l) => l.startsWith('branch '));
    out.push({
      path: dir.slice('worktree '.length),
      ...(ref ? { branch: ref.slice('branch refs/heads/'.length) } : {}),
    });
  }
  return out;
}

/**
 * Merge the branch of the worktree at `tree` into the branch it started
 * from: where that branch is checked out, with `git merge` there; where it
 * is not, by writing the merge commit and moving the branch. Checked first
 * with `git merge-tree`, so a conflict touches nothing.
 */
export async function mergeWorktree(
  run: RunGit,
  tree: string,
): Promise<MergeResult> {
  const git = async (args: string[], cwd = tree) => run(args, cwd);
  const head = await git(['rev-parse', '--abbrev-ref', 'HEAD']);
  const branch = head.stdout.trim();
  if (head.exitCode !== 0 || branch === 'HEAD' || branch === '')
    return {
      type: 'failed',
      branch: branch || '?',
      why: 'the worktree is on no branch',
    };
  const status = await git(['status', '--porcelain']);
  const files = status.stdout
    .split('\n')
    .map((l) => l.slice(3).trim())
    .filter((f) => f !== '');
  if (files.length > 0) return { type: 'dirty', branch, files };
  const list = parseWorktreeList(
    (await git(['worktree', 'list', '--porcelain'])).stdout,
  );
  const recorded = (
    await git(['config', '--get', baseConfigKey(branch)])
  ).stdout.trim();
  const base = recorded || list[0]?.branch;
  if (!base || base === branch)
    return {
      type: 'failed',
      branch,
      why: 'the branch it started from is not known',
    };
  // The base's commit, read once: the check, the merge commit's parent and
  // update-ref's expected old value all use it, so a merge another bridge
  // process makes meanwhile makes the move fail instead of being dropped.
  const resolved = await git(['rev-parse', '--verify', `refs/heads/${base}`]);
  const old = resolved.stdout.trim();
  if (resolved.exitCode !== 0 || old === '')
    return { type: 'failed', branch, base, why: `no branch ${base}` };
  const ancestor = await git(['merge-base', '--is-ancestor', branch, old]);
  if (ancestor.exitCode === 0) return { type: 'up-to-date', branch, base };
  const probe = await git([
    'merge-tree',
    '--write-tree',
    '--name-only',
    '--no-messages',
    old,
    branch,
  ]);
  if (probe.exitCode === 1) {
    const conflicted = probe.stdout.split('\n').slice(1).filter(Boolean);
    return { type: 'conflict', branch, base, files: conflicted };
  }
  if (probe.exitCode !== 0)
    return { type: 'failed', branch, base, why: probe.stderr.trim() };
  const message = `Merge branch '${branch}' into ${base} (macs, unattended)`;
  const there = list.find((w) => w.branch === base);
  if (there) {
    const merged = await git(
      ['merge', '--no-ff', '--no-edit', '-m', message, branch],
      there.path,
    );
    if (merged.exitCode !== 0) {
      await git(['merge', '--abort'], there.path);
      return {
        type: 'failed',
        branch,
        base,
        why: (merged.stderr || merged.stdout).trim().slice(0, 500),
      };
    }
  } else {
    const treeId = probe.stdout.split('\n', 1)[0]?.trim() ?? '';
    const commit = await git([
      'commit-tree',
      treeId,
      '-p',
      old,
      '-p',
      branch,
      '-m',
      message,
    ]);
    const moved =
      commit.exitCode === 0
        ? await git([
            'update-ref',
            `refs/heads/${base}`,
            commit.stdout.trim(),
            old,
          ])
        : commit;
    if (moved.exitCode !== 0)
      return { type: 'failed', branch, base, why: moved.stderr.trim() };
  }
  const commit = (await git(['rev-parse', '--short', base])).stdout.trim();
  return { type: 'merged', branch, base, commit };
}

/** Pure: what a `done` request is told, or whom it goes to, after a merge. */
export function doneOutcome(
  agent: string,
  merge: MergeResult,
): UnattendedOutcome {
  switch (merge.type) {
    case 'merged':
      return {
        type: 'answer',
        text: `Merged ${merge.branch} into ${merge.base} (${merge.commit}). Your assignment is done: stop here.`,
        data: {
          merge: 'merged',
          branch: merge.branch,
          base: merge.base,
          commit: merge.commit,
        },
      };
    case 'up-to-date':
      return {
        type: 'answer',
        text: `${merge.branch} has no commit that ${merge.base} lacks, so there was nothing to merge. If you meant to hand in work, commit it and send done again; otherwise stop here.`,
        data: { merge: 'up-to-date', branch: merge.branch, base: merge.base },
      };
    case 'dirty':
      return {
        type: 'answer',
        text: `Not merged: your worktree has uncommitted changes (${merge.files.slice(0, 5).join(', ')}${merge.files.length > 5 ? ', …' : ''}). Commit what belongs to the work (git add, git commit), then send done again.`,
        data: {
          merge: 'dirty',
          branch: merge.branch,
          files: merge.files.length,
        },
      };
    case 'conflict':
      return {
        type: 'person',
        message: `${agent} is done, but ${merge.branch} does not merge cleanly into ${merge.base} (conflicts in ${merge.files.join(', ') || 'some files'}); a person must merge it`,
        data: {
          reason: 'merge-conflict',
          branch: merge.branch,
          base: merge.base,
          files: merge.files,
        },
      };
    case 'failed':
      return {
        type: 'person',
        message: `${agent} is done, but ${merge.branch} could not be merged${merge.base ? ` into ${merge.base}` : ''}: ${merge.why}`,
        data: {
          reason: 'merge-failed',
          branch: merge.branch,
          ...(merge.base ? { base: merge.base } : {}),
          why: merge.why,
        },
      };
    default: {
      const never: never = merge;
      throw new Error(`unexpected merge ${JSON.stringify(never)}`);
    }
  }
}

/** The unattended answer to a request, or the person it must go to. */
export async function unattendedOutcome(
  request: Pick<BackendRequest, 'agent' | 'type'>,
  deps: {
    config: Pick<MacsConfig, 'nonInteractiveAnswer'>;
    paths: HomePaths;
    runGit: RunGit;
  },
): Promise<UnattendedOutcome> {
  const { agent, type } = request;
  if (type === 'approval' || type === 'appeal')
    return { type: 'answer', text: unattendedRefusal(type) };
  if (type === 'done') {
    const tree = path.join(deps.paths.runtime, 'worktrees', agent);
    if (await isDir(tree))
      return doneOutcome(agent, await mergeWorktree(deps.runGit, tree));
    return {
      type: 'answer',
      text: 'Noted. You run unattended (macs non-interactive mode) and have no worktree of your own to merge, so your work stays where it is: stop here.',
    };
  }
  return { type: 'answer', text: deps.config.nonInteractiveAnswer };
}
