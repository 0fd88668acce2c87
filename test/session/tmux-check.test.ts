import { describe, expect, it } from 'vitest';
import { TmuxError } from '../../src/errors.js';
import {
  MIN_TMUX_VERSION,
  checkTmux,
  isSessionRunning,
} from '../../src/session/tmux-check.js';
import type { RunTmux } from '../../src/tmux/run.js';
import { FakeTmuxClient } from '../helpers/fake-tmux.js';

/** A tmux that answers `-V` with this output and exit code. */
function tmuxSaying(
  stdout: string,
  exitCode = 0,
): RunTmux & { calls: string[][] } {
  const calls: string[][] = [];
  const run = (args: readonly string[]) => {
    calls.push([...args]);
    return Promise.resolve({ exitCode, stdout, stderr: '' });
  };
  return Object.assign(run, { calls });
}

describe('checkTmux', () => {
  it('returns the version text of a recent enough tmux', async () => {
    const run = tmuxSaying('tmux 3.4\n');
    await expect(checkTmux(run)).resolves.toBe('tmux 3.4');
    expect(run.calls).toEqual([['-V']]);
    await expect(checkTmux(tmuxSaying('tmux 3.0a'))).resolves.toBe('tmux 3.0a');
    // A version it cannot read is given the benefit of the doubt.
    await expect(checkTmux(tmuxSaying('tmux master'))).resolves.toBe(
      'tmux master',
    );
  });

  it('refuses a tmux older than MIN_TMUX_VERSION, with how to install one', async () => {
    expect(MIN_TMUX_VERSION).toEqual([3, 0]);
    const error: unknown = await checkTmux(tmuxSaying('tmux 2.9')).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TmuxError);
    expect((error as TmuxError).message).toBe(
      'tmux 2.9 is too old; macs start needs tmux 3.0 or newer',
    );
    expect((error as TmuxError).hint).toMatch(/install tmux/);
  });

  it('fails when tmux -V exits non-zero', async () => {
    await expect(checkTmux(tmuxSaying('bad option', 1))).rejects.toThrow(
      /could not run tmux -V: bad option/,
    );
  });
});

describe('isSessionRunning (fake tmux)', () => {
  it('asks has-session for the macs session, or the one named', async () => {
    const tmux = new FakeTmuxClient();
    expect(await isSessionRunning(tmux)).toBe(false);
    tmux.addPane();
    expect(await isSessionRunning(tmux)).toBe(true);
    expect(await isSessionRunning(tmux, 'other')).toBe(true);
    expect(tmux.commands.map((args) => args[0])).toEqual([
      'has-session',
      'has-session',
      'has-session',
    ]);
    expect(tmux.commands.at(-1)?.join(' ')).toMatch(/other/);
  });
});
