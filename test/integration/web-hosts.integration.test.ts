// `macs web` at a hub (issues 21 and 22): a host's agents and requests are
// in the page's fleet as `<host>/<name>`, and an answer given in the page to
// a host's request is typed into that worker exactly once, through the
// host's own answer_request. Real parts: a test host's sshd on its loopback
// address (test/helpers/ssh-hosts.ts), the host's macs with a fake-agent
// worker, and the hub's `macs web` reaching it with `ssh -F <test config>`.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecord, REQ, runMacs } from '../helpers/macs.js';
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
} from '../helpers/ssh-hosts.js';
import {
  rawRequest,
  signIn,
  startWeb,
  type WebProcess,
} from '../helpers/web.js';
import { waitFor } from '../helpers/wait-for.js';
import { removeTestDir } from '../helpers/tmux-server.js';

interface Fleet {
  agents: { name: string }[];
  requests: { id: string; agent: string; firstLine: string }[];
  hosts: { name: string; link: string }[];
}

describe('macs web at a hub (issues 21, 22)', () => {
  let hosts: TestHosts;
  let h1: TestHost;
  let hub: string;
  let web: WebProcess | undefined;
  const env = () => ({ MACS_SSH_CONFIG: hosts.sshConfig });

  beforeAll(async () => {
    hosts = await startTestHosts([{ name: 'h1' }]);
    [h1] = hosts.hosts as [TestHost];
    hub = mkdtempSync(path.join(os.tmpdir(), 'macs-webhub-'));
    writeHubConfig(hub, hosts);
    writeHostConfig(h1, [
      {
        name: 'worker-1',
        script: [{ print: REQ('w1', 'Which port?') }, { wait: 'submit' }],
      },
    ]);
  });
  afterAll(async () => {
    await web?.stop();
    if (hosts) {
      await sshRun(hosts, h1, `macs stop --home ${HOST_HOME}`);
      await hosts.stop();
    }
    removeTestDir(hub);
  });

  it("lists the host's agent and request, and answers it once from the page", async () => {
    const start = await runMacs(['start', '--detach'], {
      home: hub,
      env: env(),
      timeoutMs: 120_000,
    });
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);

    web = await startWeb({
      home: hub,
      socket: `macs-test-webhub-${process.pid}`,
      env: env(),
    });
    const cookie = await signIn(web);
    const port = web.port;
    const fleet = await waitFor(
      async () => {
        const res = await rawRequest(port, {
          path: '/api/fleet',
          headers: { Cookie: cookie },
        });
        const body = JSON.parse(res.body) as Fleet | null;
        return body?.requests.some((r) => r.id === 'h1/worker-1-w1')
          ? body
          : undefined;
      },
      { timeout: 60_000, message: "the host's request in the page's fleet" },
    );
    expect(fleet.agents.map((a) => a.name)).toContain('h1/worker-1');
    expect(fleet.hosts).toEqual([
      expect.objectContaining({ name: 'h1', link: 'up' }),
    ]);
    expect(fleet.requests.find((r) => r.id === 'h1/worker-1-w1')).toMatchObject(
      { agent: 'h1/worker-1', firstLine: 'Which port?' },
    );

    const post = (body: unknown) =>
      rawRequest(port, {
        method: 'POST',
        path: '/api/answer',
        headers: {
          Cookie: cookie,
          Origin: web!.origin,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify(body),
      });
    const answered = await post({ id: 'h1/worker-1-w1', text: 'Use 8080.' });
    expect(answered.status, answered.body).toBe(200);
    const submits = () =>
      readRecord(hostRecord(h1, 'worker-1')).filter((r) => r.type === 'submit');
    await waitFor(() => submits().length === 1, {
      timeout: 30_000,
      message: 'the answer typed into h1/worker-1',
    });
    expect(submits()[0]?.text).toBe('Use 8080.');
    const again = await post({ id: 'h1/worker-1-w1', text: 'Use 9090.' });
    expect(again.status).toBe(409);
    expect(submits()).toHaveLength(1);
  });
});
