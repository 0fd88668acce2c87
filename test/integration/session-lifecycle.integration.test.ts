// Issue 12: requests belong to a session, and the session's agents can be
// added, restarted, paused and resumed while it runs. `macs start` / `stop`
// on a private tmux server (`macs-test-<random>`), with the fake agent as
// every worker; waits are on conditions.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FAKE_AGENT,
  findEvents,
  readRecord,
  REQ,
  runMacs,
  waitForEvents,
} from '../helpers/macs.js';
import {
  cleanUpSession,
  readSessionFile,
  testSocket,
  tmuxOn,
} from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

describe('sessions: requests belong to one, and its agents change while it runs (issue 12)', () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-lifecycle-'));
    socket = testSocket();
  });
  afterEach(async () => {
    await cleanUpSession(home, socket);
    cleanup();
  });

  const macs = (args: string[]) => runMacs(args, { home, socket });
  const file = (...parts: string[]) => path.join(home, ...parts);
  const submits = (record: string) =>
    readRecord(record)
      .filter((e) => e.type === 'submit')
      .map((e) => e.text ?? '');
  /** A worker entry running the fake agent with these steps. */
  function fakeWorker(name: string, steps: unknown[]) {
    const script = file(`${name}.steps.json`);
    writeFileSync(script, JSON.stringify(steps));
    const record = file(`${name}.record.jsonl`);
    return {
      entry: {
        name,
        preset: 'fast',
        command: [
          process.execPath,
          FAKE_AGENT,
          '--script',
          script,
          '--record',
          record,
        ],
      },
      record,
    };
  }
  function writeConfig(workers: unknown[]) {
    writeFileSync(
      file('macs.config.json'),
      JSON.stringify({
        presets: { fast: { extends: 'generic', submitDelayMs: 20 } },
        workers: workers.map((w) => ({ ...(w as object), prompt: false })),
      }),
    );
  }
  async function start(): Promise<void> {
    const result = await macs(['start', '--detach']);
    expect(result.exitCode, result.stderr + result.stdout).toBe(0);
  }
  async function stop(): Promise<void> {
    const result = await macs(['stop', '--grace-sec', '1']);
    expect(result.exitCode, result.stderr).toBe(0);
  }

  it('3. requests of a stopped session expire at the next start, listed and archived, never delivered; status says the session stopped', async () => {
    const first = fakeWorker('worker-1', [
      { print: REQ('q1', 'asked in the first session') },
      { wait: 'submit' },
    ]);
    writeConfig([first.entry]);
    await start();
    const firstSession = readSessionFile(home) as { id?: string } | undefined;
    expect(firstSession?.id).toMatch(/^\d{8}-\d{6}-[0-9a-f]{4}$/);
    await waitForEvents(home, 'request.routed', {
      requestId: 'worker-1-q1',
      timeout: 30_000,
    });
    await stop();

    // After stop: status says so; the agent is not shown idle.
    const status = JSON.parse((await macs(['status', '--json'])).stdout) as {
      session: { status: string; id: string };
      agents: { name: string; state: string }[];
      requests: { id: string }[];
    };
    expect(status.session).toMatchObject({
      status: 'stopped',
      id: firstSession?.id,
    });
    expect(status.agents).toEqual([
      expect.objectContaining({ name: 'worker-1', state: 'dead' }),
    ]);
    expect(status.requests.map((r) => r.id)).toEqual(['worker-1-q1']);
    expect((await macs(['status'])).stdout).toMatch(
      /stopped .*its open request expires at the next macs start/,
    );

    // A new session with a new worker-1 that asks nothing.
    const second = fakeWorker('worker-1', [{ busy: 600_000 }]);
    writeConfig([second.entry]);
    const restarted = await macs(['start', '--detach']);
    expect(restarted.exitCode, restarted.stderr).toBe(0);
    expect(restarted.stderr).toContain(
      '1 request(s) of an earlier session expired',
    );
    expect(restarted.stderr).toContain('worker-1-q1');
    const [expired] = findEvents(home, 'request.expired', 'worker-1-q1');
    expect(String(expired?.data?.reason)).toContain('earlier session');
    const answer = await macs(['respond', 'worker-1-q1', 'too late']);
    expect(answer.exitCode).toBe(1);
    expect(answer.stderr).toContain("no pending request 'worker-1-q1'");
    const archived = JSON.parse(
      readFileSync(
        file(
          'archive',
          new Date().toISOString().slice(0, 10),
          'worker-1-q1.json',
        ),
        'utf8',
      ),
    ) as { stage: string; session?: string };
    expect(archived).toMatchObject({
      stage: 'expired',
      session: firstSession?.id,
    });
    expect(submits(second.record)).toEqual([]);
    expect(submits(first.record)).toEqual([]);
  });

  it('dismiss, pause and resume, add and restart, on a running session', async () => {
    const w1 = fakeWorker('worker-1', [
      { print: REQ('d1', 'dismiss me') },
      { print: REQ('d2', 'answer me later') },
      { wait: 'submit' },
      { print: REQ('d3', 'still open when I am restarted') },
      { busy: 600_000 },
    ]);
    writeConfig([w1.entry]);
    await start();
    await waitForEvents(home, 'request.routed', {
      requestId: 'worker-1-d2',
      timeout: 30_000,
    });

    // dismiss: the running bridge ends it; never typed.
    const dismissed = await macs([
      'dismiss',
      'worker-1-d1',
      '--reason',
      'not needed',
    ]);
    expect(dismissed.exitCode, dismissed.stderr).toBe(0);
    expect(dismissed.stdout).toContain('dismissed worker-1-d1');
    const [event] = findEvents(home, 'request.dismissed', 'worker-1-d1');
    expect(event?.data).toMatchObject({ reason: 'not needed', by: 'person' });
    expect((await macs(['dismiss', 'worker-1-d1'])).exitCode).toBe(1);

    // pause holds the answer; resume lets it go.
    expect((await macs(['pause', 'worker-1'])).exitCode).toBe(0);
    await waitFor(
      async () =>
        (
          JSON.parse((await macs(['status', '--json'])).stdout) as {
            agents: { paused: boolean }[];
          }
        ).agents[0]?.paused === true,
      { timeout: 10_000 },
    );
    const answered = await macs(['respond', 'worker-1-d2', 'go on']);
    expect(answered.exitCode, answered.stderr).toBe(0);
    await waitForEvents(home, 'delivery.held', {
      requestId: 'worker-1-d2',
      timeout: 20_000,
    });
    expect(submits(w1.record)).toEqual([]);
    expect((await macs(['resume', 'worker-1'])).exitCode).toBe(0);
    await waitFor(() => submits(w1.record).length === 1, {
      timeout: 20_000,
      message: 'delivered after resume',
    });
    expect(submits(w1.record)).toEqual(['go on']);
    expect((await macs(['pause', 'nobody'])).exitCode).toBe(1);

    // add: a new worker of a preset, in its own pane, supervised by the bridge.
    const added = await macs([
      'add',
      'shell',
      '--name',
      'helper',
      '--command',
      'sh',
    ]);
    expect(added.exitCode, added.stderr).toBe(0);
    const helper = readSessionFile(home)?.agents.find(
      (a) => a.name === 'helper',
    );
    expect(helper?.preset).toBe('shell');
    expect(
      (
        await tmuxOn(
          socket,
          'display-message',
          '-p',
          '-t',
          helper?.pane ?? '',
          '#{@macs_agent}',
        )
      )?.trim(),
    ).toBe('helper');
    await waitForEvents(home, 'bridge.started', { timeout: 30_000 }).then(() =>
      waitFor(
        () =>
          findEvents(home, 'bridge.started').some((e) => e.agent === 'helper'),
        { timeout: 30_000, message: 'the bridge supervises the added worker' },
      ),
    );
    expect((await macs(['add', 'shell', '--name', 'helper'])).exitCode).toBe(2);

    // restart: the same command in the same pane; the old program's open
    // requests are ended, never answered into the new one.
    await waitForEvents(home, 'request.routed', {
      requestId: 'worker-1-d3',
      timeout: 30_000,
    });
    writeFileSync(
      file('worker-1.steps.json'),
      JSON.stringify([
        { print: REQ('d1', 'dismiss me') },
        { print: REQ('d4', 'asked by the restarted program') },
        { busy: 600_000 },
      ]),
    );
    const pane = readSessionFile(home)?.agents[0]?.pane ?? '';
    const before = readSessionFile(home)?.agents[0]?.pid;
    const restarted = await macs(['restart', 'worker-1']);
    expect(restarted.exitCode, restarted.stderr).toBe(0);
    expect(restarted.stdout).toContain(
      `restarted worker-1 in its pane ${pane}`,
    );
    const after = readSessionFile(home)?.agents[0]?.pid;
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    await waitForEvents(home, 'agent.restarted', { timeout: 10_000 });
    const [ended] = await waitForEvents(home, 'request.expired', {
      requestId: 'worker-1-d3',
      timeout: 30_000,
    });
    expect(String(ended?.data?.reason)).toContain('restarted');
    expect((await macs(['respond', 'worker-1-d3', 'too late'])).exitCode).toBe(
      1,
    );
    // The new program (its script changed meanwhile) asks d1 again and a new
    // d4: d1 is known, d4 is its own; nothing of the old program is raised again.
    await waitForEvents(home, 'request.routed', {
      requestId: 'worker-1-d4',
      timeout: 30_000,
    });
    expect(
      findEvents(home, 'request.detected').map((e) => e.requestId),
    ).toEqual(['worker-1-d1', 'worker-1-d2', 'worker-1-d3', 'worker-1-d4']);
    expect(submits(w1.record)).toEqual(['go on']);
    expect((await macs(['restart', 'nobody'])).exitCode).toBe(1);
  });
});
