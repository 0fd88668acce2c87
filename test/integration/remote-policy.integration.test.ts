// Issue 21: approvals on a host are decided by the hub's rules, then the
// hub's controller or a person at the hub. The hub's `macs start` gives each
// host its `policy` with its workers; the host keeps it for that session and
// its hooks (and bridge) apply it in place of the host's own `policy`, to
// the hub's workers and the host's own alike. An `ask` rule of the hub's
// turns a host agent's tool call into an approval request that a person
// decides at the hub with `macs respond`. A session started on the host
// without the hub follows the host's own rules again.
//
// Real parts: a test sshd host (test/helpers/ssh-hosts.ts), the host's macs
// (this checkout), and the fake Claude Code that calls its hooks as Claude
// Code does (test/fixtures/fake-hook-agent.mjs).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAKE_HOOK_AGENT,
  findEvents,
  readAllEvents,
  readRecord,
  runMacs,
} from '../helpers/macs.js';
import {
  hostPath,
  HOST_HOME,
  sshRun,
  writeHubConfig,
} from '../helpers/remote-session.js';
import {
  onHost,
  startTestHosts,
  type TestHost,
  type TestHosts,
} from '../helpers/ssh-hosts.js';
import { waitFor } from '../helpers/wait-for.js';
import { removeTestDir } from '../helpers/tmux-server.js';

interface ToolRecord {
  type: string;
  input?: { command?: string };
  decision?: string;
  reason?: string;
}
interface InboxEntry {
  id: string;
  agent: string;
  type?: string;
}

/**
 * A fake Claude Code on the host that runs `commands` as Bash tool calls,
 * and waits at a `{ waitFile }` step until that file exists.
 */
function hookWorker(
  name: string,
  commands: (string | { waitFile: string })[],
): Record<string, unknown> {
  const script = `${HOST_HOME}/${name}.steps.json`;
  return {
    name,
    preset: 'claude',
    prompt: false,
    command: [
      process.execPath,
      onHost(FAKE_HOOK_AGENT),
      '--script',
      script,
      '--record',
      `${HOST_HOME}/${name}.record.jsonl`,
    ],
    steps: commands.map((command) =>
      typeof command === 'string'
        ? { tool: 'Bash', input: { command } }
        : command,
    ),
  };
}

describe("a host's approvals follow the hub's policy (issue 21)", () => {
  let hosts: TestHosts;
  let h1: TestHost;
  let hub: string;
  const macs = (args: string[]) =>
    runMacs(args, {
      home: hub,
      env: { MACS_SSH_CONFIG: hosts.sshConfig },
      timeoutMs: 120_000,
    });
  /** Write a worker's steps on the host; its config entry without them. */
  const place = (worker: Record<string, unknown>) => {
    const { steps, ...entry } = worker;
    const name = entry.name as string;
    mkdirSync(hostPath(h1, HOST_HOME), { recursive: true, mode: 0o700 });
    writeFileSync(
      hostPath(h1, `${HOST_HOME}/${name}.steps.json`),
      JSON.stringify(steps),
    );
    return entry;
  };
  const tools = (name: string): ToolRecord[] =>
    (
      readRecord(
        hostPath(h1, `${HOST_HOME}/${name}.record.jsonl`),
      ) as unknown as ToolRecord[]
    ).filter((r) => r.type === 'tool');
  const decisions = (name: string) =>
    tools(name).map((t) => [t.input?.command, t.decision]);

  /** What the host recorded, for a failure's message. */
  const hostStory = (): string =>
    readAllEvents(hostPath(h1, HOST_HOME))
      .slice(-40)
      .map((e) => JSON.stringify(e))
      .join('\n');
  /** waitFor, and the host's story when it times out. */
  const waitOnHost = async <T>(
    check: () => T | undefined | false | Promise<T | undefined | false>,
    message: string,
  ): Promise<T> => {
    try {
      return (await waitFor(check, { timeout: 60_000, message })) as T;
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${hostStory()}`);
    }
  };

  beforeAll(async () => {
    hosts = await startTestHosts([{ name: 'h1' }]);
    [h1] = hosts.hosts as [TestHost];
    hub = mkdtempSync(path.join(os.tmpdir(), 'macs-hub-'));
  });
  afterAll(async () => {
    if (hosts) {
      await sshRun(hosts, h1, `macs stop --home ${HOST_HOME}`);
      await hosts.stop();
    }
    removeTestDir(hub);
  });

  it("denies, passes and asks by the hub's rules on the host's own workers and the hub's, and by the host's own again once no hub starts it", async () => {
    // The host's own rules deny `ls`; the hub's deny `curl` and ask about
    // `git push`.
    const own = hookWorker('own-w', ['ls -la', 'curl http://example.invalid/']);
    // `git push` only once the host's bridge runs: without one, a hook
    // denies an `ask` at once (docs/hooks.md), and nobody is asked.
    const gate = `${HOST_HOME}/hub-w.go`;
    const there = hookWorker('hub-w', [
      'curl http://example.invalid/',
      'ls -la',
      { waitFile: gate },
      'git push origin main',
    ]);
    writeFileSync(
      hostPath(h1, `${HOST_HOME}/macs.config.json`),
      JSON.stringify({
        policy: {
          deny: [
            '@default',
            { name: 'host-no-ls', tool: '^Bash$', pattern: '\\bls\\b' },
          ],
        },
        workers: [place(own)],
      }),
    );
    writeHubConfig(hub, hosts, {
      policy: {
        deny: [
          '@default',
          {
            name: 'hub-no-curl',
            tool: '^Bash$',
            pattern: '\\bcurl\\b',
            reason: 'the hub forbids downloads',
          },
        ],
        ask: [{ name: 'hub-ask-push', tool: '^Bash$', pattern: 'git\\s+push' }],
        askTimeoutSec: 120,
      },
      workers: [{ ...place(there), host: 'h1' }],
    });

    const start = await macs(['start', '--detach']);
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);
    expect(start.stdout).toMatch(/host h1: .*started/);

    // The host's own worker, by the hub's rules: curl denied, ls passes.
    await waitOnHost(
      () => tools('own-w').length === 2,
      "own-w's two tool calls",
    );
    expect(decisions('own-w')).toEqual([
      ['ls -la', 'none'],
      ['curl http://example.invalid/', 'deny'],
    ]);
    expect(tools('own-w')[1]?.reason).toMatch(
      /hub-no-curl.*the hub forbids downloads/,
    );

    // The hub's worker: the same, and `git push` waits for the hub.
    await waitOnHost(
      () => tools('hub-w').length === 2,
      "hub-w's first two tool calls",
    );
    expect(decisions('hub-w')).toEqual([
      ['curl http://example.invalid/', 'deny'],
      ['ls -la', 'none'],
    ]);
    await waitOnHost(
      () =>
        findEvents(hostPath(h1, HOST_HOME), 'bridge.started').some(
          (e) => e.agent === 'hub-w',
        ),
      "hub-w's bridge on the host",
    );
    writeFileSync(hostPath(h1, gate), '');
    const asked = await waitOnHost(async () => {
      const run = await macs(['inbox', '--json']);
      const found = (JSON.parse(run.stdout) as InboxEntry[]).find(
        (r) => r.agent === 'h1/hub-w',
      );
      // Said on a timeout: what the hub saw last.
      if (!found) throw new Error(`${run.stdout} ${run.stderr}`);
      return found;
    }, "hub-w's approval request at the hub");
    expect(asked.id).toMatch(/^h1\/hub-w-/);
    expect(asked.type).toBe('approval');
    const decided = await macs(['respond', asked.id, 'allow']);
    expect(decided.exitCode, decided.stderr + decided.stdout).toBe(0);
    await waitOnHost(() => tools('hub-w').length === 3, 'the git push decided');
    expect(decisions('hub-w')[2]).toEqual(['git push origin main', 'allow']);
    // The host records who decided: a person, at the hub, with macs respond
    // (it was "the controller", the hub's call being an MCP tool's).
    const local = asked.id.slice('h1/'.length);
    const [answered] = findEvents(
      hostPath(h1, HOST_HOME),
      'request.answered',
      local,
    );
    expect(answered?.data).toMatchObject({
      decidedBy: 'person',
      via: 'hub:respond',
    });

    // Started on the host without the hub: the host's own rules again.
    const stop = await macs(['stop']);
    expect(stop.exitCode, stop.stderr + stop.stdout).toBe(0);
    const alone = await sshRun(
      hosts,
      h1,
      `macs start --detach --no-wait --home ${HOST_HOME}`,
    );
    expect(alone.exitCode, alone.stderr + alone.stdout).toBe(0);
    await waitOnHost(
      () => tools('own-w').length === 4,
      "own-w's tool calls in the host's own session",
    );
    expect(decisions('own-w').slice(2)).toEqual([
      ['ls -la', 'deny'],
      ['curl http://example.invalid/', 'none'],
    ]);
    expect(tools('own-w')[2]?.reason).toMatch(/host-no-ls/);
  });
});
