import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  FAKE_AGENT,
  findEvents,
  readRecord,
  REQ,
  waitForEvents,
  type Step,
} from '../helpers/macs.js';
import { useTmuxHarness } from '../helpers/harness.js';
import type { TestTmuxServer } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

// Faults around the bridge's files and panes (docs/reliability.md): the pane
// log truncated or deleted under a running bridge, the worker's pane killed
// in the middle of a delivery, and a state file that cannot be read. Each
// test drives a real bridge (dist/main.js) on a private tmux server and
// checks what the worker received (the fake agent's record), what reached
// the inbox, and the events left behind.

describe('faults: pane logs, panes and state files', () => {
  const harness = useTmuxHarness();
  let server: TestTmuxServer;
  let home: string;
  beforeEach(() => ({ server, home } = harness));

  const file = (...parts: string[]) => path.join(home, ...parts);
  const paneLog = (agent: string) => file('.macs', 'panes', `${agent}.log`);

  const startWorker = (script: Step[]) => harness.startWorker(script);

  const bridge = (args: string[]) => harness.startBridge(['--quiet', ...args]);

  const events = (type: string, requestId?: string) =>
    findEvents(home, type, requestId);

  const waitForEvent = (type: string, requestId?: string) =>
    waitForEvents(home, type, { requestId, timeout: 15_000 });

  async function inInbox(id: string): Promise<void> {
    await waitFor(() => existsSync(file('inbox', `${id}.json`)), {
      timeout: 15_000,
      message: `request ${id} in the inbox`,
    });
  }

  /** Answer as a person would: write, then rename into outbox/. */
  function answer(id: string, text: string): void {
    const temp = file('outbox', `.${id}.tmp`);
    writeFileSync(temp, text);
    renameSync(temp, file('outbox', `${id}.txt`));
  }

  /** Start a bridge on the pane, then let the worker's script go on. */
  async function startBridgeFirst(pane: string): Promise<void> {
    bridge(['--worker-pane', pane, '--agent', 'w']);
    await waitForEvent('bridge.started');
    writeFileSync(file('started.flag'), 'go');
  }

  const submits = (record: string) =>
    readRecord(record)
      .filter((r) => r.type === 'submit')
      .map((r) => r.text);

  const detectedIds = () => events('request.detected').map((e) => e.requestId);

  function archived(id: string): Record<string, unknown> | undefined {
    const root = file('archive');
    if (!existsSync(root)) return undefined;
    for (const day of readdirSync(root)) {
      const json = path.join(root, day, `${id}.json`);
      if (existsSync(json))
        return JSON.parse(readFileSync(json, 'utf8')) as Record<
          string,
          unknown
        >;
    }
    return undefined;
  }

  it('detects requests printed after the pane log is truncated', async () => {
    const go = file('go.flag');
    const { pane } = await startWorker([
      { waitFile: file('started.flag') },
      { noise: 40 },
      { print: REQ('t1', 'asked before the truncation') },
      { waitFile: go },
      { print: REQ('t2', 'asked after the truncation') },
    ]);
    await startBridgeFirst(pane);
    await inInbox('w-t1');
    // Emptied in place, as `: > log` does; tmux's `cat >>` goes on appending.
    truncateSync(paneLog('w'), 0);
    writeFileSync(go, 'go');
    await inInbox('w-t2');
    expect(readFileSync(file('inbox', 'w-t2.txt'), 'utf8')).toBe(
      'asked after the truncation',
    );
    await waitForEvent('capture.truncated');
    expect(detectedIds()).toEqual(['w-t1', 'w-t2']);
  });

  it('pipes the pane into a new log when the log is deleted, and detects what follows once', async () => {
    const first = file('first.flag');
    const second = file('second.flag');
    const { pane } = await startWorker([
      { waitFile: file('started.flag') },
      { print: REQ('d1', 'asked before the log is deleted') },
      { waitFile: first },
      { print: REQ('d2', 'asked right after the log is deleted') },
      { waitFile: second },
      { print: REQ('d3', 'asked once the new log is there') },
    ]);
    await startBridgeFirst(pane);
    await inInbox('w-d1');
    rmSync(paneLog('w'));
    writeFileSync(first, 'go');
    await inInbox('w-d2');
    await waitFor(
      () =>
        events('warning').some((e) =>
          String(e.data?.message).includes('deleted or replaced'),
        ),
      { timeout: 15_000, message: 'the warning about the deleted log' },
    );
    expect(
      events('capture.started').filter((e) => e.data?.reopened === true),
    ).toHaveLength(1);
    writeFileSync(second, 'go');
    await inInbox('w-d3');
    // The new pipe writes where the bridge reads.
    expect(readFileSync(paneLog('w'), 'utf8')).toContain(
      'asked once the new log is there',
    );
    expect(detectedIds()).toEqual(['w-d1', 'w-d2', 'w-d3']);
  });

  it('a pane killed during the submit delay: the answer is recorded unconfirmed, never typed again, and a single-agent bridge stops with exit 1 naming the pane', async () => {
    writeFileSync(
      file('macs.config.json'),
      JSON.stringify({
        presets: { slow: { extends: 'generic', submitDelayMs: 2_000 } },
      }),
    );
    const { pane, record } = await startWorker([
      { print: REQ('p1', 'kill my pane while you type') },
      { wait: 'submit' },
    ]);
    const b = bridge([
      '--worker-pane',
      pane,
      '--agent',
      'w',
      '--preset',
      'slow',
    ]);
    await inInbox('w-p1');
    answer('w-p1', 'line one\nline two');
    await waitFor(
      () => readRecord(record).some((r) => r.type === 'paste-end'),
      { timeout: 15_000, message: 'the answer pasted' },
    );
    await server.tmux('kill-pane', '-t', pane);

    expect(await b.exited).toBe(1);
    expect(b.output()).toContain(
      `macs: pane ${pane} of agent 'w' is gone (killed or closed); the bridge stops`,
    );
    expect(b.output()).toMatch(/hint: .*open request/);
    expect(events('error', 'w-p1').some((e) => e.data?.paneGone === true)).toBe(
      true,
    );
    expect(events('delivery.unconfirmed', 'w-p1')).toHaveLength(1);
    expect(archived('w-p1')?.stage).toBe('unconfirmed');
    expect(submits(record)).toEqual([]);
  });

  it('a restart that finds typed text in the composer presses only the submit key, and never adds an empty submission', async () => {
    writeFileSync(
      file('macs.config.json'),
      JSON.stringify({
        presets: { slow: { extends: 'generic', submitDelayMs: 60_000 } },
      }),
    );
    const { pane, record } = await startWorker([
      { print: REQ('c1', 'first question') },
      { wait: 'submit' },
      { print: REQ('c2', 'second question') },
      { wait: 'submit' },
    ]);
    const stateFile = file('.macs', 'state', 'w.json');
    type Saved = {
      requests: Record<string, { stage: string; submittingAt?: string }>;
    };
    const saved = () => JSON.parse(readFileSync(stateFile, 'utf8')) as Saved;
    const edit = (
      id: string,
      change: (r: Saved['requests'][string]) => void,
    ) => {
      const state = saved();
      const request = state.requests[id];
      if (!request) throw new Error(`no ${id} in the state file`);
      change(request);
      writeFileSync(stateFile, JSON.stringify(state));
    };
    const args = ['--worker-pane', pane, '--agent', 'w', '--preset', 'slow'];
    const pasted = async (id: string) =>
      waitFor(() => saved().requests[id]?.stage === 'pasted', {
        timeout: 15_000,
        message: `${id} pasted`,
      });

    // Killed while typing (stage `delivering`), the text already in the composer.
    let b = bridge(args);
    await inInbox('w-c1');
    answer('w-c1', 'first line\nsecond line');
    await pasted('w-c1');
    b.child.kill('SIGKILL');
    await b.exited;
    edit('w-c1', (r) => (r.stage = 'delivering'));
    b = bridge(args);
    await waitFor(() => submits(record).length === 1, {
      timeout: 15_000,
      message: 'the waiting text submitted',
    });
    expect(submits(record)).toEqual(['first line\nsecond line']);
    await waitForEvent('request.delivered', 'w-c1');
    expect(events('request.delivered', 'w-c1')[0]?.data?.method).toBe(
      'typed-before-restart',
    );

    // Killed right after the submit key: the composer is empty, nothing is pressed.
    await inInbox('w-c2');
    answer('w-c2', 'third line\nfourth line');
    await pasted('w-c2');
    b.child.kill('SIGKILL');
    await b.exited;
    edit('w-c2', (r) => (r.submittingAt = new Date().toISOString()));
    await server.tmux('send-keys', '-t', pane, 'Enter');
    await waitFor(() => submits(record).length === 2, {
      timeout: 15_000,
      message: 'the key pressed before the restart',
    });
    bridge(args);
    await waitForEvent('request.delivered', 'w-c2');
    expect(events('request.delivered', 'w-c2')[0]?.data?.method).toBe(
      'submitted-before-restart',
    );
    expect(submits(record)).toEqual([
      'first line\nsecond line',
      'third line\nfourth line',
    ]);
  });

  // Issue 12 (a living session never misroutes): this test once expected the
  // answer of a program that ended to be typed into the program respawned in
  // its pane. The new program never asked; the answer must be ended instead.
  it('a single-agent bridge never types the answer of a program that ended into the program respawned in its pane', async () => {
    const close = file('close.flag');
    const { pane, record } = await startWorker([
      { print: REQ('e1', 'answer me after my dialog') },
      { approval: { question: 'Allow?', untilFile: close } },
      { exit: 1 },
    ]);
    const b = bridge(['--worker-pane', pane, '--agent', 'w']);
    await inInbox('w-e1');
    answer('w-e1', 'the answer that waits');
    await waitForEvent('request.answered', 'w-e1');
    writeFileSync(close, 'go');
    await waitFor(
      () => events('error', 'w-e1').some((e) => e.data?.paneGone === true),
      { timeout: 15_000, message: 'the delivery saw the pane dead' },
    );
    await waitFor(
      () => events('state.changed').some((e) => e.data?.to === 'dead'),
      { timeout: 15_000, message: 'the pane recorded dead' },
    );
    expect(b.child.exitCode).toBeNull();

    const again = file('record-again.jsonl');
    await server.tmux(
      'respawn-pane',
      '-t',
      pane,
      [process.execPath, FAKE_AGENT, '--record', again]
        .map((a) => `'${a}'`)
        .join(' '),
    );
    await waitForEvent('request.expired', 'w-e1');
    await waitForEvent('request.archived', 'w-e1');
    expect(archived('w-e1')).toMatchObject({ stage: 'expired' });
    expect(String(events('request.expired', 'w-e1')[0]?.data?.reason)).toMatch(
      /restarted/,
    );
    expect(submits(again)).toEqual([]);
    expect(submits(record)).toEqual([]);
    expect(events('request.delivered', 'w-e1')).toHaveLength(0);
  });

  it('bridge --all: a pane killed while its answer waits keeps the answer, and the other worker is still served', async () => {
    const go = file('go.flag');
    const busy = await startWorker([
      { print: REQ('k1', 'answer me while I am busy') },
      { busy: 30_000 },
    ]);
    const other = await startWorker([
      { waitFile: go },
      { print: REQ('k2', 'still there?') },
      { wait: 'submit' },
    ]);
    await harness.tagAgent(busy.pane, 'w1');
    await harness.tagAgent(other.pane, 'w2');
    const b = bridge(['--all', '--backend', 'file']);
    await inInbox('w1-k1');
    answer('w1-k1', 'the answer that waits');
    await waitForEvent('request.answered', 'w1-k1');
    await server.tmux('kill-pane', '-t', busy.pane);
    await waitFor(
      () =>
        events('agent.exited').some((e) => e.agent === 'w1') ||
        events('error', 'w1-k1').some((e) => e.data?.paneGone === true),
      { timeout: 15_000, message: 'w1 reported gone' },
    );

    writeFileSync(go, 'go');
    await inInbox('w2-k2');
    answer('w2-k2', 'yes, still here');
    await waitFor(() => submits(other.record).length > 0, {
      timeout: 15_000,
      message: 'w2 served',
    });
    expect(submits(other.record)).toEqual(['yes, still here']);
    expect(b.child.exitCode).toBeNull();
    // Kept, at the stage it reached: the agent is dead, not replaced. (A new
    // pane of w1 runs another program, which would end it, never take it.)
    const state = JSON.parse(
      readFileSync(file('.macs', 'state', 'w1.json'), 'utf8'),
    ) as { requests: Record<string, { stage: string }> };
    expect(state.requests['w1-k1']?.stage).toBe('answered');
    expect(submits(busy.record)).toEqual([]);
  });

  it('rebuilds an unreadable state file from the event log: nothing delivered twice, pending requests still answerable', async () => {
    const down = file('down.flag');
    const { pane, record } = await startWorker([
      { print: REQ('c1', 'first question') },
      { wait: 'submit' },
      { print: REQ('c2', 'second question') },
      { print: REQ('c3', 'third question') },
      { waitFile: down },
      { print: REQ('c4', 'asked while the bridge is down') },
    ]);
    const args = ['--worker-pane', pane, '--agent', 'w', '--backend', 'file'];
    const first = bridge(args);
    // c1: delivered and archived.
    await inInbox('w-c1');
    answer('w-c1', 'answer one');
    await waitForEvent('request.archived', 'w-c1');
    // c2: routed, waiting for its answer; c3: answered, held by a pause.
    await inInbox('w-c2');
    await inInbox('w-c3');
    mkdirSync(file('.macs', 'control'), { recursive: true });
    writeFileSync(file('.macs', 'control', 'w.paused'), 'paused');
    answer('w-c3', 'answer three');
    await waitForEvent('delivery.held', 'w-c3');

    first.child.kill('SIGKILL');
    await first.exited;
    const stateFile = file('.macs', 'state', 'w.json');
    const saved = readFileSync(stateFile, 'utf8');
    writeFileSync(stateFile, saved.slice(0, Math.floor(saved.length / 2)));
    // c4: printed while the bridge is down.
    writeFileSync(down, 'go');
    await waitFor(
      async () =>
        (await server.capture(pane)).includes('asked while the bridge is down'),
      { timeout: 10_000, message: 'c4 printed' },
    );
    rmSync(file('.macs', 'control', 'w.paused'));

    bridge(args);
    await waitFor(() => submits(record).includes('answer three'), {
      timeout: 15_000,
      message: 'the held answer delivered after the rebuild',
    });
    await inInbox('w-c4');
    answer('w-c2', 'answer two');
    answer('w-c4', 'answer four');
    await waitFor(() => submits(record).length >= 4, {
      timeout: 15_000,
      message: 'c2 and c4 answered after the rebuild',
    });
    await waitForEvent('request.archived', 'w-c4');
    await waitForEvent('request.archived', 'w-c2');

    expect([...submits(record)].sort()).toEqual([
      'answer four',
      'answer one',
      'answer three',
      'answer two',
    ]);
    expect([...detectedIds()].sort()).toEqual(['w-c1', 'w-c2', 'w-c3', 'w-c4']);
    expect(events('request.delivered')).toHaveLength(4);
    const warning = events('warning').find((e) => e.data?.movedTo);
    expect(String(warning?.data?.message)).toContain(
      'rebuilt from the event log',
    );
    expect(String(warning?.data?.movedTo)).toMatch(/w\.json\.corrupt-\d+$/);
    expect(existsSync(String(warning?.data?.movedTo))).toBe(true);
  });
});
