// Issue 21: a worker defined at the hub with `"host": "h1"` is started by
// the hub's `macs start` on that host, by the host's own macs, in the same
// session as the host's own workers; the hub sees and answers it as
// `h1/<name>`, and `macs stop --host h1` ends it with the rest. A name that
// both the hub and the host define is refused with one line before anything
// starts. Real parts: a test sshd host (test/helpers/ssh-hosts.ts), the
// host's macs (this checkout) and fake-agent workers.
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecord, REQ, runMacs } from '../helpers/macs.js';
import {
  fakeHostWorker,
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
import { waitFor } from '../helpers/wait-for.js';

interface HostJson {
  name: string;
  link: 'up' | 'down';
  agents: { name: string; state: string }[];
  requests: { id: string }[];
}

describe('workers defined at the hub with "host" (issue 21)', () => {
  let hosts: TestHosts;
  let h1: TestHost;
  let hub: string;
  const macs = (args: string[], input?: string) =>
    runMacs(args, {
      home: hub,
      env: { MACS_SSH_CONFIG: hosts.sshConfig },
      timeoutMs: 120_000,
      ...(input !== undefined ? { input } : {}),
    });
  const hostAgents = async (): Promise<string[]> => {
    const run = await macs(['hosts', '--json']);
    const view = (JSON.parse(run.stdout) as { hosts: HostJson[] }).hosts[0];
    return (view?.agents ?? []).map((a) => a.name).sort();
  };

  /** Whether any tmux server of h1 holds a macs session (asked over ssh). */
  const hostSessionRunning = async (): Promise<boolean> => {
    const dir = path.join(h1.tmpDir, 'tmux-0');
    if (!existsSync(dir)) return false;
    for (const socket of readdirSync(dir))
      if (
        (
          await sshRun(
            hosts,
            h1,
            `tmux -S /tmp/tmux-0/${socket} has-session -t macs`,
          )
        ).exitCode === 0
      )
        return true;
    return false;
  };

  beforeAll(async () => {
    hosts = await startTestHosts([{ name: 'h1' }]);
    [h1] = hosts.hosts as [TestHost];
    hub = mkdtempSync(path.join(os.tmpdir(), 'macs-hub-'));
    writeHostConfig(h1, [{ name: 'own-1', script: [] }]);
    writeHubConfig(hub, hosts, {
      workers: [
        {
          ...fakeHostWorker(h1, {
            name: 'gpu-w',
            script: [
              { print: REQ('q7', 'Which dataset?') },
              { wait: 'submit' },
            ],
          }),
          host: 'h1',
        },
      ],
    });
  });
  afterAll(async () => {
    if (hosts) {
      await sshRun(hosts, h1, `macs stop --home ${HOST_HOME}`);
      await hosts.stop();
    }
  });

  it('starts it on its host beside the host’s own workers, answers it from the hub, and stops it with --host', async () => {
    const start = await macs(['start', '--detach']);
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);
    expect(start.stdout).toMatch(/host h1: .*started/);
    // Supervised there, seen at the hub as h1/<name>, both hub's and host's.
    await waitFor(
      async () =>
        (await hostAgents()).join(',') === 'h1/gpu-w,h1/own-1' || undefined,
      { timeout: 60_000, message: 'h1/gpu-w and h1/own-1 at the hub' },
    );
    // Its request reaches the hub and the answer is typed into it once.
    await waitFor(
      async () => {
        const open = JSON.parse((await macs(['inbox', '--json'])).stdout) as {
          id: string;
        }[];
        return open.some((r) => r.id === 'h1/gpu-w-q7') || undefined;
      },
      { timeout: 60_000, message: 'h1/gpu-w-q7 in the hub inbox' },
    );
    const answer = await macs(['respond', 'h1/gpu-w-q7', 'use the small one']);
    expect(answer.exitCode, answer.stderr).toBe(0);
    await waitFor(
      () =>
        readRecord(hostRecord(h1, 'gpu-w')).some(
          (r) => r.type === 'submit' && r.text?.includes('use the small one'),
        ) || undefined,
      { timeout: 30_000, message: 'the answer typed into h1/gpu-w' },
    );
    expect(
      readRecord(hostRecord(h1, 'gpu-w')).filter((r) => r.type === 'submit'),
    ).toHaveLength(1);

    const stopped = await macs(['stop', '--host', 'h1']);
    expect(stopped.exitCode, stopped.stdout + stopped.stderr).toBe(0);
    expect(stopped.stdout).toMatch(/host h1: .*stopped/);
    await waitFor(async () => !(await hostSessionRunning()) || undefined, {
      timeout: 15_000,
      message: "h1's macs session gone",
    });
  });

  it('refuses a worker name that the host’s own config defines too, starting nothing there', async () => {
    writeHostConfig(h1, [{ name: 'gpu-w', script: [] }]);
    const start = await macs(['start', '--detach']);
    expect(start.exitCode).toBe(1);
    expect(start.stdout).toMatch(
      /host h1: .*worker 'gpu-w' is defined both in this host's macs.config.json and in the hub's/,
    );
    expect(await hostSessionRunning()).toBe(false);
  });
});
