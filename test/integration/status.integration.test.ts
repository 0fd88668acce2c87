import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { SnapshotSchema } from '../../src/state/snapshot-schema.js';
import {
  findEvents,
  loadedSources,
  MACS_BIN,
  REPO_ROOT,
  readAllEvents,
  readRecord,
  REQ,
  runMacs,
  type Step,
} from '../helpers/macs.js';
import { type TestTmuxServer } from '../helpers/tmux-server.js';
import { useTmuxHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';

describe('macs status on a real tmux', () => {
  const harness = useTmuxHarness();
  const bridges = harness.bridges;
  let server: TestTmuxServer;
  let home: string;
  beforeEach(() => ({ server, home } = harness));

  const startWorker = (script: Step[]) =>
    harness.startWorker(script, { name: 'worker-1' });
  const startFileBridge = (pane: string) =>
    harness.startBridge([
      '--worker-pane',
      pane,
      '--agent',
      'worker-1',
      '--backend',
      'file',
    ]);

  async function startStatusView(): Promise<string> {
    // Through sh, so the exit status shows on the pane when the view quits.
    const command = `"${process.execPath}" "${MACS_BIN}" status; echo "macs status exited $?"`;
    return server.spawnPane(['sh', '-c', command], {
      cwd: home,
      width: 120,
      height: 40,
      env: { MACS_HOME: home, MACS_TMUX_SOCKET: server.socket },
    });
  }

  const keys = (pane: string, ...args: string[]) =>
    server.tmux('send-keys', '-t', pane, ...args);
  const type = (pane: string, text: string) =>
    server.tmux('send-keys', '-t', pane, '-l', '--', text);
  const submits = (record: string) =>
    readRecord(record).filter((r) => r.type === 'submit');
  const screenOf = (pane: string) => server.capture(pane);
  async function waitForScreen(pane: string, text: string | RegExp) {
    return waitFor(
      async () => {
        const screen = await screenOf(pane);
        return typeof text === 'string'
          ? screen.includes(text)
          : text.test(screen);
      },
      // Generous: the first render loads React and ink, slow on a busy 2-core machine.
      { timeout: 30_000, message: `status view shows ${String(text)}` },
    ).catch(async (error: unknown) => {
      throw new Error(
        `${String(error)}\n--- screen ---\n${await screenOf(pane)}`,
      );
    });
  }
  const hasEvent = (type: string, requestId: string) =>
    findEvents(home, type, requestId).length > 0;

  it('shows a request, answers it with r, and p holds the next delivery until resumed', async () => {
    const { pane, record } = await startWorker([
      { print: REQ('q1', 'May I refactor the parser?') },
      { wait: 'submit' },
      { print: REQ('q2', 'Shall I also update the docs?') },
      { wait: 'submit' },
    ]);
    const bridge = startFileBridge(pane);
    const view = await startStatusView();

    // The view shows the request, marked as waiting for a person.
    await waitForScreen(view, 'May I refactor the parser?');
    await waitForScreen(view, /● +<?\d+[smh] +worker-1 +question +needs you/);
    // It called for attention once (bell; no tmux client is attached here).
    await waitFor(() => hasEvent('attention', 'worker-1-q1'), {
      timeout: 15_000,
      message: 'attention event',
    });

    // r, a two-part answer over several lines, Ctrl-D.
    await keys(view, 'r');
    await waitForScreen(view, 'Ctrl-D send');
    await type(view, 'WORKER INSTRUCTIONS:');
    await keys(view, 'Enter');
    await type(view, 'Yes, refactor it.');
    await keys(view, 'Enter');
    await type(view, 'NOTES:');
    await keys(view, 'Enter');
    await type(view, 'kept for people');
    await waitForScreen(view, 'kept for people');
    await keys(view, 'C-d');
    await waitFor(() => submits(record).length === 1, {
      timeout: 20_000,
      message: `first delivery; bridge said: ${bridge.output()}`,
    });
    expect(submits(record)[0]?.text).toBe('Yes, refactor it.');

    // The second request is selected (it waits for a person) and its
    // detail shows the notes of the answer before it.
    await waitForScreen(
      view,
      /›● +<?\d+[smh] +worker-1 +question +needs you +Shall I also update the docs\?/,
    );
    await keys(view, 'Enter');
    await waitForScreen(view, 'DETAIL request worker-1-q2');
    await waitForScreen(view, /^notes: kept for people$/m);
    await keys(view, 'Escape');

    // p pauses worker-1, the selected request's agent.
    await keys(view, 'p');
    const pauseFile = path.join(home, '.macs', 'control', 'worker-1.paused');
    await waitFor(() => existsSync(pauseFile), {
      message: 'pause control file',
    });
    await waitForScreen(view, 'paused');

    // Answer the second request; the bridge holds it while paused.
    await keys(view, 'r');
    await waitForScreen(view, 'Ctrl-D send');
    await type(view, 'Not yet.');
    await keys(view, 'C-d');
    await waitFor(() => hasEvent('delivery.held', 'worker-1-q2'), {
      timeout: 20_000,
      message: `delivery.held; bridge said: ${bridge.output()}`,
    });
    expect(submits(record)).toHaveLength(1);
    await waitForScreen(view, /worker-1 +question +answered +Shall I also/);

    // p again resumes: the held answer is delivered.
    await keys(view, 'p');
    await waitFor(() => !existsSync(pauseFile), { message: 'pause removed' });
    await waitFor(() => submits(record).length === 2, {
      timeout: 20_000,
      message: 'second delivery',
    });
    expect(submits(record)[1]?.text).toBe('Not yet.');
    expect(
      readAllEvents(home)
        .filter((e) => e.type.startsWith('delivery.') && e.agent === 'worker-1')
        .map((e) => e.type),
    ).toEqual(
      expect.arrayContaining([
        'delivery.paused',
        'delivery.held',
        'delivery.resumed',
      ]),
    );
    // The agent's detail shows its last response.
    await keys(view, 'Enter');
    await waitForScreen(view, 'DETAIL agent worker-1');
    await waitForScreen(view, /^instructions: Not yet\.$/m);

    // a shows the worker's pane: its window becomes the session's current one.
    const active = () =>
      server.tmux('display-message', '-p', '-t', pane, '#{window_active}');
    expect((await active()).trim()).toBe('0');
    await keys(view, 'a');
    await waitFor(async () => (await active()).trim() === '1', {
      message: "the worker's window is selected",
    });
    await waitForScreen(view, `selected worker-1 (${pane}`);

    // q quits, with status 0.
    await keys(view, 'q');
    // (tmux's "Pane is dead" line may scroll it into the history.)
    await waitFor(
      async () =>
        (
          await server.tmux('capture-pane', '-p', '-S', '-', '-t', view)
        ).includes('macs status exited 0'),
      { timeout: 15_000, message: 'the view exits with status 0 on q' },
    );
  });

  it('--json prints a snapshot that validates against its schema, without loading React', async () => {
    const { pane } = await startWorker([
      { print: REQ('j1', 'Which database?') },
    ]);
    startFileBridge(pane);
    await waitFor(
      () => existsSync(path.join(home, 'inbox', 'worker-1-j1.json')),
      {
        timeout: 15_000,
        message: 'request detected',
      },
    );
    const trace = path.join(home, 'imports.txt');
    const env = {
      NODE_OPTIONS: `--import=${path.join(REPO_ROOT, 'test', 'fixtures', 'trace-imports.mjs')}`,
      MACS_TRACE_IMPORTS: trace,
    };
    const run = await runMacs(['status', '--json'], {
      home,
      socket: server.socket,
      env,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const snapshot = SnapshotSchema.parse(JSON.parse(run.stdout));
    expect(snapshot.agents).toEqual([
      expect.objectContaining({
        name: 'worker-1',
        pane,
        bridge: { running: true, pid: bridges[0]?.child.pid },
      }),
    ]);
    expect(snapshot.requests).toEqual([
      expect.objectContaining({
        id: 'worker-1-j1',
        body: 'Which database?',
        waitingForPerson: true,
      }),
    ]);
    const loaded = loadedSources(readFileSync(trace, 'utf8'));
    expect(loaded).toContain('src/cli/status.ts');
    expect(loaded.join('\n')).not.toMatch(/node_modules\/(ink|react)\//);
    expect(loaded.join('\n')).not.toMatch(/^src\/ui\/.*\.tsx$/m);

    // Without a terminal: the plain-text summary, still without React.
    writeFileSync(trace, '');
    const text = await runMacs(['status'], {
      home,
      socket: server.socket,
      env,
    });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/worker-1-j1\s+Which database\?/);
    expect(loadedSources(readFileSync(trace, 'utf8')).join('\n')).not.toMatch(
      /node_modules\/(ink|react)\/|^src\/ui\/.*\.tsx$/m,
    );
  });
});
