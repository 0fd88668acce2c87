/**
 * Running git (no shell): the session's worktrees (session/worktree.ts) ask
 * it through RunGit, so tests can give a fake. A non-zero exit is a value;
 * a missing git binary is a MacsError with a hint.
 */
import { execa } from 'execa';
import { MacsError } from '../errors.js';

/** One git run; a non-zero exit is a value, not a throw. */
export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export type RunGit = (
  args: readonly string[],
  cwd: string,
) => Promise<GitResult>;

/** The real git runner. */
export function createRunGit(env: NodeJS.ProcessEnv = process.env): RunGit {
  return async (args, cwd) => {
    const result = await execa('git', [...args], {
      cwd,
      env,
      extendEnv: false,
      reject: false,
      shell: false,
      stdin: 'ignore',
      maxBuffer: 4 * 1024 * 1024,
    });
    if ((result as { code?: unknown }).code === 'ENOENT')
      throw new MacsError('git not found on PATH (needed for worktree: true)', {
        hint: 'install git (Debian/Ubuntu: apt-get install -y git), or set "worktree": false',
      });
    return {
      exitCode: result.exitCode ?? 1,
      stdout: String(result.stdout ?? ''),
      stderr: String(result.stderr ?? ''),
    };
  };
}
