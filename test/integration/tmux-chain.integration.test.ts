// TmuxClient.chain (issue 21, "Speed": `macs start` ran ≈8 tmux processes
// per agent; now an agent's commands go in one `tmux a \; b` call). On a real
// tmux server: the commands run in order in one process, an argument that is
// `;` or ends in `;` stays an argument (never a separator), a NUL is refused
// before tmux runs, and a failing command stops the chain and is reported
// as a single command's failure is (a missing pane: PaneNotFoundError).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TmuxError } from '../../src/errors.js';
import { createTmuxClient, PaneNotFoundError } from '../../src/tmux/client.js';
import { createRunTmux, type RunTmux } from '../../src/tmux/run.js';
import {
  childEnv,
  startTmuxServer,
  type TestTmuxServer,
} from '../helpers/tmux-server.js';

let server: TestTmuxServer;
let pane: string;

beforeAll(async () => {
  server = await startTmuxServer();
  pane = await server.spawnPane(['sh']);
});

afterAll(async () => {
  await server.kill();
});

/** A client on the test server that counts the tmux processes it starts. */
function countingClient() {
  const real = createRunTmux({ env: childEnv() });
  const calls: string[][] = [];
  const run: RunTmux = (args, options) => {
    calls.push([...args]);
    return real(args, options);
  };
  return { tmux: createTmuxClient(server.socket, run), calls };
}

const option = async (name: string) =>
  (
    await server.tmux('show-options', '-p', '-q', '-v', '-t', pane, name)
  ).replace(/\n$/, '');

describe('TmuxClient.chain on a real tmux', () => {
  it('runs the commands in order in one process and keeps `;` arguments as text', async () => {
    const { tmux, calls } = countingClient();
    const out = await tmux.chain(
      [
        ['set-option', '-p', '-t', pane, '@chain_a', ';'],
        ['set-option', '-p', '-t', pane, '@chain_b', 'git add -A;'],
        ['select-pane', '-t', pane, '-T', 'a; b'],
        ['display-message', '-p', '-t', pane, '#{@chain_a}|#{pane_title}'],
      ],
      pane,
    );
    expect(calls).toHaveLength(1);
    expect(out).toBe(';|a; b\n');
    expect(await option('@chain_a')).toBe(';');
    expect(await option('@chain_b')).toBe('git add -A;');
  });

  it('stops at the first failing command and names the missing pane', async () => {
    const { tmux } = countingClient();
    const chain = tmux.chain(
      [
        ['set-option', '-p', '-t', '%9999', '@chain_c', 'x'],
        ['set-option', '-p', '-t', pane, '@chain_d', 'never'],
      ],
      '%9999',
    );
    await expect(chain).rejects.toBeInstanceOf(PaneNotFoundError);
    expect(await option('@chain_d')).toBe('');
  });

  it('refuses an argument holding a NUL before running tmux', async () => {
    const { tmux, calls } = countingClient();
    await expect(
      tmux.chain([['set-option', '-p', '-t', pane, '@chain_e', 'a\0;']]),
    ).rejects.toBeInstanceOf(TmuxError);
    expect(calls).toHaveLength(0);
  });
});
