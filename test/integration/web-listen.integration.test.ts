// Issue 29, `macs web`'s manners. On a port another program holds it
// said "unexpected error: listen EADDRINUSE … run again with --debug" (a
// flag its help does not list): it must say that the address and port are
// taken and what to pass instead, and exit 1. Strategy: the test itself
// holds a port on 127.0.0.1 and runs the real `macs web` on it.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMacs } from '../helpers/macs.js';
import { testSocket } from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';

describe('macs web: a taken port (issue 29)', () => {
  let home: string;
  let cleanup: () => void;

  beforeAll(() => {
    ({ home, cleanup } = makeTempHome('macs-web-listen-'));
  });
  afterAll(() => {
    cleanup?.();
  });

  it('a port already taken: says so, names the address, suggests --listen, exits 1', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) =>
      holder.listen(0, '127.0.0.1', () => resolve()),
    );
    const { port } = holder.address() as net.AddressInfo;
    try {
      const run = await runMacs(['web', '--listen', `127.0.0.1:${port}`], {
        home,
        socket: testSocket(),
        timeoutMs: 30_000,
      });
      expect(run.exitCode, run.stderr).toBe(1);
      expect(run.stderr).toContain(
        `macs: 127.0.0.1:${port} is taken: another program listens there`,
      );
      expect(run.stderr).toMatch(
        /^hint: .*--listen 127\.0\.0\.1:\d+.*--listen 127\.0\.0\.1:0/m,
      );
      expect(run.stderr).not.toMatch(/unexpected error|--debug|EADDRINUSE/);
      expect(run.stdout).toBe('');
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });
});
