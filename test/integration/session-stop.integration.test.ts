// `macs stop` of a session of plain shells (issue 29, part 2).
//
// Bug 1: a shell ignores the interrupt key, so every bash worker waited out
// the whole grace period and was killed ("did not exit in time; pane
// killed"): a stop of shells took the grace period (5 s by default).
// Strategy: a session of two bash workers, one at its prompt and one
// running `sleep` in front of its shell; `macs stop` with a long grace must
// report each as ended by the hang-up (none killed), and every process of
// the panes must be gone. The time is measured in `npm run bench`, not here.
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMacs } from '../helpers/macs.js';
import {
  cleanUpSession,
  isAlive,
  processesMentioning,
  testSocket,
  tmuxOn,
} from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

describe('macs stop of shells', () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-stop-'));
    socket = testSocket();
  });
  afterEach(async () => {
    await cleanUpSession(home, socket);
    cleanup();
  });

  const macs = (args: string[]) =>
    runMacs(args, { home, socket, timeoutMs: 90_000 });
  const screen = async (pane: string) =>
    (await tmuxOn(socket, 'capture-pane', '-p', '-t', pane)) ?? '';
  /** The pids of the session's panes (the shells tmux started). */
  const panePids = async () =>
    (
      (await tmuxOn(
        socket,
        'list-panes',
        '-s',
        '-t',
        '=macs',
        '-F',
        '#{pane_pid}',
      )) ?? ''
    )
      .split('\n')
      .filter(Boolean)
      .map(Number);

  it('bash workers end at the hang-up, not killed after the grace period, and nothing of their panes is left', async () => {
    const start = await macs([
      'start',
      '--detach',
      '--worker',
      'bash --norc',
      '--worker',
      'bash --norc',
    ]);
    expect(start.exitCode, start.stderr).toBe(0);
    const agentPanes = [...start.stdout.matchAll(/worker-\d +(%\d+)/g)].map(
      (m) => m[1] ?? '',
    );
    expect(agentPanes).toHaveLength(2);
    const [atPrompt = '', busy = ''] = agentPanes;
    for (const pane of agentPanes)
      await waitFor(async () => /[$#] ?$/m.test(await screen(pane)), {
        message: `a prompt in ${pane}`,
        timeout: 20_000,
      });
    // The second shell runs a command in front of it (the interrupt key
    // ends it; the shell is back at its prompt and is hung up then).
    const seconds = 3000 + (randomBytes(2).readUInt16BE() % 1000);
    await tmuxOn(socket, 'send-keys', '-t', busy, `sleep ${seconds}`, 'Enter');
    await waitFor(() => processesMentioning(`sleep ${seconds}`).length > 0, {
      message: 'the sleep runs',
    });
    const pids = [
      ...(await panePids()),
      ...processesMentioning(`sleep ${seconds}`).map((line) =>
        Number(line.split(/\s+/, 1)[0]),
      ),
    ];
    expect(pids.length).toBeGreaterThanOrEqual(5); // 2 shells, bridge, view, sleep

    // A grace period far longer than a hang-up takes: a guard, not a verdict.
    const stop = await macs(['stop', '--grace-sec', '60']);
    expect(stop.exitCode, stop.stderr).toBe(0);
    expect(stop.stdout).not.toMatch(/did not exit in time/);
    expect(stop.stdout).toMatch(
      new RegExp(`worker-1 +${atPrompt} +exited when hung up`),
    );
    expect(stop.stdout).toMatch(
      new RegExp(`worker-2 +${busy} +exited when hung up`),
    );
    expect(stop.stdout).toMatch(/bridge +%\d+ +exited when interrupted/);
    await waitFor(() => pids.every((pid) => !isAlive(pid)), {
      message: `every process of the panes is gone: ${pids.filter(isAlive).join(' ')}`,
    });
    expect(stop.stdout).not.toMatch(/leftover/);
  });
});
