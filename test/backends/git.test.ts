import { describe, expect, it } from 'vitest';
import { createRunGit } from '../../src/backends/git.js';
import { MacsError } from '../../src/errors.js';

describe('createRunGit', () => {
  it('runs git and gives a failed exit as a value', async () => {
    const run = createRunGit();
    const ok = await run(['--version'], process.cwd());
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout).toMatch(/^git version/);
    const bad = await run(['no-such-subcommand-xyz'], process.cwd());
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toMatch(/no-such-subcommand-xyz/);
  });

  it('says that git is missing when it is not on PATH', async () => {
    const run = createRunGit({ PATH: '/nonexistent-macs-test' });
    const error = await run(['--version'], process.cwd()).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MacsError);
    expect((error as Error).message).toMatch(/git not found on PATH/);
  });
});
