// Issue 29, `macs web`'s manners. (1) On a port another program holds it
// said "unexpected error: listen EADDRINUSE … run again with --debug" (a
// flag its help does not list): it must say that the address and port are
// taken and what to pass instead, and exit 1. Strategy: the test itself
// holds a port on 127.0.0.1 and runs the real `macs web` on it.
// (2) Ten wrong tokens from any process of the machine locked the person's
// own signed-in page out for a minute (429 before the cookie was even
// read): a live session cookie or the right secret must be served while the
// wrong guesses from that address are refused. Strategy: sign in, make ten
// wrong guesses from the same loopback address, then use the cookie (page,
// API, socket) and the secret again.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMacs } from '../helpers/macs.js';
import { testSocket } from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import {
  rawRequest,
  signIn,
  startWeb,
  upgradeStatus,
  type WebProcess,
} from '../helpers/web.js';

describe('macs web: a taken port, and wrong guesses next to a signed-in page (issue 29)', () => {
  let home: string;
  let cleanup: () => void;
  let web: WebProcess | undefined;

  beforeAll(() => {
    ({ home, cleanup } = makeTempHome('macs-web-listen-'));
  });
  afterAll(async () => {
    await web?.stop();
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

  it('ten wrong tokens do not lock out a live session cookie or the right secret', async () => {
    web = await startWeb({ home, socket: testSocket() });
    const host = `127.0.0.1:${web.port}`;
    const cookie = await signIn(web);
    const guesses: number[] = [];
    for (let i = 0; i < 10; i += 1)
      guesses.push(
        (await rawRequest(web.port, { path: `/?token=guess${i}` })).status,
      );
    // The guesses are refused (the tenth as too many).
    expect(guesses.every((s) => s === 401 || s === 429)).toBe(true);

    // The signed-in page keeps working: its page, the API and its socket.
    const page = await rawRequest(web.port, {
      headers: { Host: host, Cookie: cookie },
    });
    expect(page.status, page.body).toBe(200);
    expect(
      (
        await rawRequest(web.port, {
          path: '/api/fleet',
          headers: { Host: host, Cookie: cookie },
        })
      ).status,
    ).toBe(200);
    expect(
      await upgradeStatus(web.port, {
        Host: host,
        Cookie: cookie,
        Origin: `http://${host}`,
      }),
    ).toBe(101);
    // The right secret still signs in (another browser of the person's).
    expect(
      (
        await rawRequest(web.port, {
          path: `/?token=${encodeURIComponent(web.secret)}`,
        })
      ).status,
    ).toBe(200);
    // A wrong guess, token or forged cookie, is still refused as too many.
    expect(
      (await rawRequest(web.port, { path: '/?token=guess-again' })).status,
    ).toBe(429);
    expect(
      (
        await rawRequest(web.port, {
          headers: { Host: host, Cookie: 'macs_web=forged' },
        })
      ).status,
    ).toBe(429);
    // And macs web says, once, that someone is guessing.
    expect(web.output()).toMatch(
      /warning: 10 wrong secrets or session cookies from 127\.0\.0\.1/,
    );
  });
});
