// The hub's one model of its fleet (issue 31). Bugs: (1) a host's request
// reached the hub as its first line only: `macs inbox --json` had no body,
// the page's body was the first line; (2) a host that went down vanished
// from `macs inbox` ("no pending requests") and from the page, although an
// answer given meanwhile is kept and delivered; (3) ages of a host's rows
// came from the hub's snapshot time, and nothing corrected a host's clock.
// Strategy: real test hosts (sshd on loopback, test/helpers/ssh-hosts.ts);
// h1 runs on the hub's clock, h2's clock is 7 minutes ahead (its macs
// processes load test/fixtures/skewed-clock.mjs); each has a fake-agent
// worker asking a three-line question. Every door is read as a user would:
// `macs inbox` (text and --json), `macs web`'s /api/fleet, the hub's MCP
// `get_request`; then h1's sshd is killed and the doors read again.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MACS_BIN, readRecord, REQ, runMacs } from '../helpers/macs.js';
import {
  hostRecord,
  HOST_HOME,
  sshRun,
  writeHostConfig,
  writeHubConfig,
} from '../helpers/remote-session.js';
import {
  startTestHosts,
  type TestHost,
  type TestHosts,
  sshClientsOf,
} from '../helpers/ssh-hosts.js';
import { childEnv, removeTestDir } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';
import {
  rawRequest,
  signIn,
  startWeb,
  type WebProcess,
} from '../helpers/web.js';

const BODY =
  'Line one: which database?\n(A) postgres\n(B) sqlite\nReply A or B';
const SKEW_MS = 7 * 60_000;

interface InboxEntry {
  id: string;
  body?: string;
  ageSec?: number | null;
  detectedAt?: string | null;
  hostDown?: { since: string | null } | null;
}
interface FleetReq {
  id: string;
  body: string;
  ageMs: number;
  attributes: Record<string, string>;
}

describe('the hub sees its hosts whole, down or skewed (issue 31)', () => {
  let hosts: TestHosts;
  let h1: TestHost;
  let h2: TestHost;
  let hub: string;
  let web: WebProcess | undefined;
  let cookie = '';
  /** When each worker printed its request, on the hub's (true) clock. */
  const askedAt = new Map<string, number>();
  const env = () => ({ MACS_SSH_CONFIG: hosts.sshConfig });
  const macs = (args: string[], input?: string) =>
    runMacs(args, {
      home: hub,
      env: env(),
      timeoutMs: 120_000,
      ...(input !== undefined ? { input } : {}),
    });
  const inbox = async (): Promise<InboxEntry[]> =>
    JSON.parse((await macs(['inbox', '--json'])).stdout) as InboxEntry[];
  const fleetRequests = async (cookie: string): Promise<FleetReq[]> => {
    const res = await rawRequest(web!.port, {
      path: '/api/fleet',
      headers: { Cookie: cookie },
    });
    return (
      (JSON.parse(res.body) as { requests: FleetReq[] } | null)?.requests ?? []
    );
  };

  beforeAll(async () => {
    hosts = await startTestHosts([
      { name: 'h1' },
      { name: 'h2', clockSkewMs: SKEW_MS },
    ]);
    [h1, h2] = hosts.hosts as [TestHost, TestHost];
    hub = mkdtempSync(path.join(os.tmpdir(), 'macs-fleetmodel-'));
    writeHubConfig(hub, hosts);
    for (const h of [h1, h2])
      writeHostConfig(h, [
        {
          name: 'worker-1',
          script: [{ print: REQ('db', BODY) }, { wait: 'submit' }],
        },
      ]);
  });
  afterAll(async () => {
    await web?.stop();
    if (hosts) {
      await h1.start().catch(() => undefined);
      for (const h of [h1, h2])
        await sshRun(hosts, h, `macs stop --home ${HOST_HOME}`).catch(
          () => undefined,
        );
      await hosts.stop();
    }
    removeTestDir(hub);
  });

  it('shows the three-line request whole at inbox, web and MCP, with ages from each host clock', async () => {
    const before = Date.now();
    const start = await macs(['start', '--detach']);
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);
    const entries = await waitFor(
      async () => {
        const all = await inbox();
        return all.some((e) => e.id === 'h1/worker-1-db') &&
          all.some((e) => e.id === 'h2/worker-1-db')
          ? all
          : undefined;
      },
      { timeout: 90_000, message: "both hosts' requests in macs inbox" },
    );
    const readAt = Date.now();
    for (const id of ['h1/worker-1-db', 'h2/worker-1-db']) {
      const e = entries.find((x) => x.id === id)!;
      expect(e.body).toBe(BODY);
      // Asked between `macs start` and the read, on the hub's clock, within
      // 2 s (h2's clock, 7 minutes ahead, corrected by the link's offset).
      const at = Date.parse(e.detectedAt ?? '');
      expect(at).toBeGreaterThanOrEqual(before - 2_000);
      expect(at).toBeLessThanOrEqual(readAt + 2_000);
      expect(Math.abs(e.ageSec! * 1000 - (readAt - at))).toBeLessThan(
        2_000 + (readAt - before),
      );
      askedAt.set(id, at);
    }

    const text = await macs(['inbox']);
    expect(text.stdout).toContain('    (A) postgres');
    expect(text.stdout).toContain('    Reply A or B');
    expect(text.stdout).toContain('macs respond <host>/<id>');
    expect(text.stdout).not.toContain('inbox/<id>.txt');

    web = await startWeb({
      home: hub,
      socket: `macs-test-fleetmodel-${process.pid}`,
      env: env(),
    });
    cookie = await signIn(web);
    const shown = await waitFor(
      async () => {
        const rs = await fleetRequests(cookie);
        return rs.find((r) => r.id === 'h2/worker-1-db');
      },
      { timeout: 60_000, message: "h2's request in the page's fleet" },
    );
    expect(shown.body).toBe(BODY);
    // The page's age agrees with the hub-clock time inbox gave (within 2 s).
    const pageAskedAt = Date.now() - shown.ageMs;
    expect(Math.abs(pageAskedAt - askedAt.get('h2/worker-1-db')!)).toBeLessThan(
      2_000 + 6_000,
    );

    const client = new Client({ name: 'test', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MACS_BIN, 'mcp'],
        env: childEnv({ MACS_HOME: hub, ...env() }) as Record<string, string>,
        stderr: 'ignore',
      }),
    );
    try {
      const got = await client.callTool({
        name: 'get_request',
        arguments: { id: 'h1/worker-1-db' },
      });
      expect(
        (got.structuredContent as { request: { body: string } }).request.body,
      ).toBe(BODY);
      const listed = await client.callTool({ name: 'list_requests' });
      const rows = (
        listed.structuredContent as {
          requests: { id: string; body?: string }[];
        }
      ).requests;
      expect(rows.find((r) => r.id === 'h1/worker-1-db')?.body).toBe(BODY);
    } finally {
      await client.close();
    }
  });

  it('keeps a host that went down at inbox and web, marked, answerable, delivered once after', async () => {
    // h1 goes down: its sshd, then the connections it had (the page's link).
    await h1.kill();
    for (const pid of sshClientsOf(hosts, h1)) process.kill(pid, 'SIGKILL');
    const marked = await waitFor(
      async () => {
        const e = (await inbox()).find((x) => x.id === 'h1/worker-1-db');
        return e?.hostDown ? e : undefined;
      },
      { timeout: 30_000, message: "h1's request kept, marked down, in inbox" },
    );
    expect(marked.body).toBe(BODY);
    const text = await macs(['inbox']);
    expect(text.stdout).toContain('h1/worker-1-db');
    expect(text.stdout).toMatch(/h1 down since/);

    const kept = await waitFor(
      async () =>
        (await fleetRequests(cookie)).find(
          (r) => r.id === 'h1/worker-1-db' && r.attributes.hostDown,
        ),
      { timeout: 30_000, message: "h1's request kept in the page, marked" },
    );
    expect(kept.body).toBe(BODY);

    const answer = await macs(['respond', 'h1/worker-1-db', 'A']);
    expect(answer.exitCode, answer.stderr + answer.stdout).toBe(0);
    expect(answer.stdout + answer.stderr).toMatch(/kept/);

    await h1.start();
    const submits = () =>
      readRecord(hostRecord(h1, 'worker-1')).filter((r) => r.type === 'submit');
    // Any command that reaches the host delivers what is kept first.
    await waitFor(
      async () => {
        await macs(['inbox']);
        return submits().length === 1;
      },
      { timeout: 60_000, message: 'the kept answer typed into h1/worker-1' },
    );
    expect(submits()[0]?.text).toBe('A');
    await macs(['inbox']);
    expect(submits()).toHaveLength(1);
  });
});
