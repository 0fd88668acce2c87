// `macs stop` ends an agent's whole process tree, helpers in sessions of
// their own included (issue 17, item 9: Codex 0.169 starts `codex app-server
// --managed-daemon` with setsid as a child of the agent; it outlived the
// pane and `macs stop`). The agent here is a small node program that does
// the same: a detached child (its own session, so no hang-up reaches it).
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMacs } from '../helpers/macs.js';
import {
  cleanUpSession,
  isServerUp,
  processesMentioning,
  readStateFile,
  testSocket,
} from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

/** A worker that starts a daemon in a session of its own, then waits or exits. */
function workerStartingDaemon(marker: string, then: 'wait' | 'exit'): string {
  const script = [
    "const { spawn } = require('node:child_process');",
    `spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '${marker}'], { detached: true, stdio: 'ignore' }).unref();`,
    "console.log('daemon started');",
    then === 'wait' ? 'setInterval(() => {}, 1000);' : 'process.exit(0);',
  ].join(' ');
  return `${JSON.stringify(process.execPath)} -e ${JSON.stringify(script)}`;
}

describe('macs stop ends the daemons agents start', () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;
  let marker: string;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-stopd-'));
    socket = testSocket();
    marker = `macs-test-daemon-${randomBytes(4).toString('hex')}`;
  });

  afterEach(async () => {
    await cleanUpSession(home, socket);
    for (const line of processesMentioning(marker)) {
      try {
        process.kill(Number(line.split(/\s+/, 1)[0]), 'SIGKILL');
      } catch {
        // gone
      }
    }
    cleanup();
  });

  it.each(['wait', 'exit'] as const)(
    'an agent that started a daemon in its own session, then %s: nothing is left after macs stop',
    async (then) => {
      const start = await runMacs(
        [
          'start',
          '--detach',
          '--worker',
          workerStartingDaemon(marker, then),
          '--backend',
          'file',
        ],
        { home, socket, timeoutMs: 60_000 },
      );
      expect(start.exitCode, start.stderr).toBe(0);
      await waitFor(() => processesMentioning(marker).length >= 1, {
        timeout: 30_000,
        message: 'the daemon runs',
      });
      if (then === 'exit')
        await waitFor(() => readStateFile(home, 'worker-1')?.state === 'dead', {
          timeout: 30_000,
          message: 'the worker is dead',
        });
      const stop = await runMacs(['stop', '--grace-sec', '1'], {
        home,
        socket,
        timeoutMs: 60_000,
      });
      expect(stop.exitCode, stop.stderr).toBe(0);
      expect(await isServerUp(socket)).toBe(false);
      await waitFor(() => processesMentioning(marker).length === 0, {
        timeout: 10_000,
        message: `the daemon is gone: ${processesMentioning(marker).join('; ')}`,
      });
    },
  );
});
