import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  FAKE_AGENT,
  findEvents,
  REPO_ROOT,
  readRecord,
  waitForEvents,
  type Step,
} from '../helpers/macs.js';
import { type TestTmuxServer } from '../helpers/tmux-server.js';
import { useTmuxHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';

const FAKE_TUI = path.join(REPO_ROOT, 'test', 'fixtures', 'fake-tui.mjs');

const LONG_QUESTION =
  'Should I migrate the users table now, or wait until the API change lands so that the new columns, the renamed foreign keys and the backfill all go into one migration that we can roll back as a whole?';

describe('reading panes as a person sees them', () => {
  const harness = useTmuxHarness();
  let server: TestTmuxServer;
  let home: string;
  beforeEach(() => ({ server, home } = harness));

  function file(name: string): string {
    return path.join(home, name);
  }

  async function startTui(
    script: Step[],
    size = { width: 100, height: 30 },
  ): Promise<{ pane: string; record: string }> {
    const record = file('tui-record.jsonl');
    writeFileSync(file('tui-script.json'), JSON.stringify(script));
    const pane = await server.spawnPane(
      [
        process.execPath,
        FAKE_TUI,
        '--script',
        file('tui-script.json'),
        '--record',
        record,
      ],
      size,
    );
    return { pane, record };
  }

  const bridge = (pane: string, extra: string[] = []) =>
    harness.startBridge(['--worker-pane', pane, '--agent', 'tui-1', ...extra]);

  const events = (type: string) => findEvents(home, type);

  const waitForEvent = (type: string, count = 1, message = type) =>
    waitForEvents(home, type, { count, timeout: 20_000, message });

  const phase = (record: string, name: string) =>
    readRecord(record).some(
      (r) => r.type === 'phase' && (r as { name?: string }).name === name,
    );

  const inboxBody = (id: string) =>
    readFileSync(path.join(home, 'inbox', `${id}.txt`), 'utf8');

  it('finds every request of a redrawing, wrapping, boxing, resizing full-screen agent exactly once', async () => {
    const { pane, record } = await startTui([
      { waitFile: file('go') },
      { say: 'Let me look at the schema first.\nReading src/db/schema.ts.' },
      { busy: true },
      { ticks: 3 },
      { say: 'Found 12 migrations. Is the last one applied? Checking.' },
      // A line longer than the pane: the terminal wraps it.
      {
        request: {
          attrs: 'id=q1 type=question',
          body: `${LONG_QUESTION}\nOptions: (a) now (b) after the API change`,
        },
      },
      { ticks: 25 },
      // Inside a box border, printed while the spinner runs.
      {
        request: {
          attrs: 'id=q2 priority=high',
          body: 'Which database should the tests use?\nOptions: postgres or sqlite',
          box: true,
        },
      },
      { ticks: 25 },
      { busy: false },
      { say: 'Waiting for your answers.' },
      { ticks: 25 },
      { phase: 'printed' },
      { waitFile: file('go2') },
      {
        request: {
          attrs: 'type=review',
          body: 'Please review the plan in PLAN.md.\nIt has three steps.',
          box: true,
        },
      },
      { ticks: 25 },
      { phase: 'done' },
    ]);
    bridge(pane);
    await waitForEvent('bridge.started');
    writeFileSync(file('go'), '');
    await waitFor(() => phase(record, 'printed'), { timeout: 20_000 });
    await waitForEvent('request.detected', 2, 'q1 and q2');

    // The agent reprints its whole history at each new size.
    await server.tmux('resize-window', '-t', pane, '-x', '70', '-y', '24');
    await waitFor(
      () =>
        readRecord(record).some(
          (r) => r.type === 'resized' && (r as { cols?: number }).cols === 70,
        ),
      { timeout: 10_000, message: 'reprint at 70 columns' },
    );
    await server.tmux('resize-window', '-t', pane, '-x', '120', '-y', '35');
    await waitFor(
      () =>
        readRecord(record).some(
          (r) => r.type === 'resized' && (r as { cols?: number }).cols === 120,
        ),
      { timeout: 10_000, message: 'reprint at 120 columns' },
    );
    writeFileSync(file('go2'), '');
    // Output is read in order: once the last request is in, the reprints
    // before it have been read too.
    await waitForEvent('request.detected', 3, 'the request after the resizes');
    await waitFor(() => phase(record, 'done'), { timeout: 20_000 });

    const detected = events('request.detected');
    expect(detected.map((e) => e.requestId)).toEqual([
      'tui-1-q1',
      'tui-1-q2',
      expect.stringMatching(/^tui-1-\d{8}T\d{6}-[0-9a-f]{8}$/),
    ]);
    expect(inboxBody('tui-1-q1')).toBe(
      `${LONG_QUESTION}\nOptions: (a) now (b) after the API change`,
    );
    expect(inboxBody('tui-1-q2')).toBe(
      'Which database should the tests use?\nOptions: postgres or sqlite',
    );
    expect(inboxBody(detected[2]?.requestId ?? '')).toBe(
      'Please review the plan in PLAN.md.\nIt has three steps.',
    );
    expect(detected[1]?.data).toMatchObject({ priority: 'high' });
    expect(detected[2]?.data).toMatchObject({ type: 'review' });
    expect(events('request.duplicate')).toEqual([]);
    expect(events('request.malformed')).toEqual([]);
    expect(events('request.attribute-dropped')).toEqual([]);
  });

  it('finds a request printed before the bridge started once, however often it is redrawn afterwards', async () => {
    const { pane, record } = await startTui([
      {
        request: {
          attrs: 'id=early',
          body: 'Asked before anyone listened?',
          box: true,
        },
      },
      { phase: 'asked' },
      { waitFile: file('resize') },
      { ticks: 30 },
      { request: { attrs: 'id=late', body: 'And after the reprint?' } },
    ]);
    await waitFor(() => phase(record, 'asked'), { timeout: 10_000 });
    bridge(pane);
    await waitForEvent('request.detected', 1, 'the early request');
    // Repaints and a reprint at another size: the same block again and again.
    await server.tmux('resize-window', '-t', pane, '-x', '80', '-y', '25');
    await waitFor(
      () =>
        readRecord(record).some(
          (r) => r.type === 'resized' && (r as { cols?: number }).cols === 80,
        ),
      { timeout: 10_000, message: 'reprint at 80 columns' },
    );
    writeFileSync(file('resize'), '');
    // Output is read in order: once the late request is in, every redraw
    // of the early one before it has been read.
    await waitForEvent('request.detected', 2, 'the late request');
    expect(events('request.detected').map((e) => e.requestId)).toEqual([
      'tui-1-early',
      'tui-1-late',
    ]);
    expect(inboxBody('tui-1-early')).toBe('Asked before anyone listened?');
    expect(events('request.duplicate')).toEqual([]);
  });

  it('takes a request that tmux kept a copy of at each repaint before the bridge started as asked once', async () => {
    const { pane, record } = await startTui([
      { request: { attrs: 'id=early', body: 'Asked, then repainted?' } },
      // Two whole-screen repaints (ESC [2J): tmux moves the screen into its
      // history each time, so the pane's history holds three copies.
      { ticks: 25 },
      { phase: 'asked' },
      { waitFile: file('go') },
      { request: { attrs: 'id=late', body: 'And one more?' } },
    ]);
    await waitFor(() => phase(record, 'asked'), { timeout: 10_000 });
    const history = await server.tmux(
      'capture-pane',
      '-p',
      '-J',
      '-S',
      '-',
      '-t',
      pane,
    );
    expect(
      history.split('<<CONTROLLER_REQUEST id=early>>').length - 1,
    ).toBeGreaterThan(1);
    bridge(pane);
    await waitForEvent('request.detected', 1, 'the early request');
    writeFileSync(file('go'), '');
    await waitForEvent('request.detected', 2, 'the late request');
    expect(events('request.detected').map((e) => e.requestId)).toEqual([
      'tui-1-early',
      'tui-1-late',
    ]);
    expect(events('request.duplicate')).toEqual([]);
  });

  it('makes no heuristic request while the agent works, and exactly one for the same question at its idle prompt', async () => {
    const prose: Step[] = [
      { say: 'Looking at the parser. Is the tokenizer the problem?' },
      {
        say: [
          'Here is the current loop:',
          '```ts',
          '// should I refactor this? done later, complete rewrite?',
          'for (const token of tokens) {',
          '  if (done) break; // finished?',
          '}',
          '```',
          'Step one is done. The tests are complete.',
        ].join('\n'),
      },
      {
        say: 'Shall I keep going? All set with the lexer; ready for review soon.',
      },
      { say: 'Do you want the details? Should I explain?' },
    ];
    const { pane, record } = await startTui([
      { waitFile: file('go') },
      { busy: true },
      ...prose.flatMap((step) => [step, { ticks: 6 }]),
      // Working for a while with a question as the last line.
      { ticks: 30 },
      { phase: 'worked' },
      { say: 'Should I also update the documentation?' },
      { busy: false },
      { phase: 'asked' },
      // Long enough for several more readings of the same idle screen.
      { ticks: 40 },
      { phase: 'idle-a-while' },
    ]);
    bridge(pane, ['--heuristics']);
    await waitForEvent('bridge.started');
    writeFileSync(file('go'), '');
    await waitFor(() => phase(record, 'worked'), { timeout: 30_000 });
    await waitFor(
      () => events('state.changed').some((e) => e.data?.to === 'working'),
      { timeout: 10_000, message: 'the bridge saw the agent working' },
    );
    await waitForEvent('request.detected', 1, 'the heuristic request');
    await waitFor(() => phase(record, 'idle-a-while'), { timeout: 20_000 });

    const detected = events('request.detected');
    expect(detected).toHaveLength(1);
    expect(detected[0]?.data).toMatchObject({
      type: 'heuristic',
      attributes: { type: 'heuristic', trigger: 'question' },
    });
    const body = inboxBody(detected[0]?.requestId ?? '');
    expect(body.split('\n').at(-1)).toBe(
      'Should I also update the documentation?',
    );
    // The state was idle when it fired.
    const states = events('state.changed').map((e) => e.data?.to);
    expect(states).toContain('idle');
  });

  it('records the state with its source, and dead with the exit status', async () => {
    const script = file('agent-script.json');
    writeFileSync(
      script,
      JSON.stringify([
        { waitFile: file('busy') },
        { busy: 1500 },
        { waitFile: file('exit') },
        { exit: 7 },
      ]),
    );
    const pane = await server.spawnPane([
      process.execPath,
      FAKE_AGENT,
      '--script',
      script,
    ]);
    bridge(pane);
    await waitFor(
      () =>
        events('state.changed').some(
          (e) => e.data?.to === 'idle' && e.data.source === 'screen',
        ),
      { timeout: 15_000, message: 'idle from the screen' },
    );
    writeFileSync(file('busy'), '');
    await waitFor(
      () =>
        events('state.changed').some(
          (e) => e.data?.to === 'working' && e.data.source === 'screen',
        ),
      { timeout: 15_000, message: 'working from the screen' },
    );
    writeFileSync(file('exit'), '');
    await waitFor(
      () => events('state.changed').some((e) => e.data?.to === 'dead'),
      { timeout: 15_000, message: 'dead' },
    );
    const dead = events('state.changed').find((e) => e.data?.to === 'dead');
    // tmux 3.3 now and then never learns a dead pane's exit status; macs
    // records it whenever tmux has it.
    const status = (
      await server.tmux(
        'display-message',
        '-p',
        '-t',
        pane,
        '#{pane_dead_status}',
      )
    ).trim();
    const exit = status === '' ? {} : { exitCode: Number(status) };
    if (status !== '') expect(status).toBe('7');
    expect(dead?.data).toMatchObject({ source: 'pane', ...exit });
    const stateFile = path.join(home, '.macs', 'state', 'tui-1.json');
    await waitFor(
      () =>
        existsSync(stateFile) &&
        (JSON.parse(readFileSync(stateFile, 'utf8')) as { state: string })
          .state === 'dead',
      { timeout: 10_000, message: 'dead in the state file' },
    );
    expect(JSON.parse(readFileSync(stateFile, 'utf8'))).toMatchObject({
      state: 'dead',
      stateSource: 'pane',
      ...exit,
      stateSince: expect.stringMatching(/^\d{4}-/),
    });
  });
});
