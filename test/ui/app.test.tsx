import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/state/snapshot-schema.js';
import { App } from '../../src/ui/App.js';
import { KEYS, renderInk } from '../helpers/render.js';
import {
  NOW,
  ago,
  createFixedSource,
  makeAgent,
  makeEvent,
  makeRequest,
  makeSnapshot,
  recordingIntents,
} from './fixtures.js';

async function renderApp(
  snapshot: Snapshot,
  size: { columns?: number; rows?: number } = {},
) {
  const source = createFixedSource(snapshot);
  const { intents, calls } = recordingIntents();
  const view = await renderInk(
    <App
      source={source}
      intents={intents}
      now={NOW}
      columns={size.columns ?? 100}
      rows={size.rows ?? 30}
      timeZone="UTC"
    />,
  );
  return { ...view, source, calls };
}

/** Every key is listed in the view, whatever its width. */
function expectKeyBar(frame: string) {
  const flat = frame.replace(/\n/g, ' ');
  for (const key of [
    '↑↓/jk select',
    'enter detail',
    'r answer',
    'e $EDITOR',
    'p pause/resume',
    'a jump to pane',
    '? help',
    'q quit',
  ])
    expect(flat).toContain(key);
}

function expectFits(frame: string, columns: number, rows: number) {
  const lines = frame.split('\n');
  expect(lines.length).toBeLessThan(rows);
  for (const line of lines)
    expect([...line].length).toBeLessThanOrEqual(columns);
}

const busy = makeSnapshot({
  agents: [
    makeAgent({
      name: 'worker-1',
      state: 'working',
      stateSource: 'hook',
      stateSince: ago(12_000),
      counts: {
        pending: 0,
        waitingForPerson: 0,
        detected: 5,
        delivered: 4,
        duplicates: 0,
        malformed: 0,
      },
      lastRoundTripMs: 8200,
    }),
    makeAgent({
      name: 'worker-2',
      preset: 'codex',
      pane: '%4',
      state: 'working',
      stateSource: 'screen',
      stateSince: ago(185_000),
      counts: {
        pending: 0,
        waitingForPerson: 0,
        detected: 1,
        delivered: 1,
        duplicates: 0,
        malformed: 0,
      },
      lastRoundTripMs: 640,
    }),
    makeAgent({
      name: 'controller',
      preset: 'claude',
      pane: '%1',
      state: 'idle',
    }),
  ],
  events: [
    makeEvent({
      ts: ago(60_000),
      agent: 'worker-2',
      type: 'request.delivered',
      requestId: 'worker-2-q1',
      data: { method: 'paste', chars: 42, waitedMs: 1500 },
    }),
    makeEvent({
      ts: ago(12_000),
      agent: 'worker-1',
      type: 'state.changed',
      data: { from: 'idle', to: 'working', source: 'hook' },
    }),
  ],
});

const withRequest = makeSnapshot({
  agents: [
    makeAgent({
      counts: {
        pending: 1,
        waitingForPerson: 1,
        detected: 2,
        delivered: 1,
        duplicates: 0,
        malformed: 0,
      },
      lastRoundTripMs: 95_000,
      lastResponse: {
        requestId: 'worker-1-q-16',
        stage: 'delivered',
        instructions: 'Use vitest.',
        notes: 'It keeps asking about test runners; add it to the plan.',
        source: 'outbox/worker-1-q-16.txt',
        receivedAt: ago(600_000),
        deliveredAt: ago(595_000),
      },
    }),
  ],
  requests: [
    makeRequest({
      context: { branch: 'feature/users', cwd: '/work/proj' },
    }),
  ],
});

describe('the status view, panel by panel', () => {
  it('an empty session says how to start and lists every key', async () => {
    const view = await renderApp(makeSnapshot(), { rows: 24 });
    const frame = view.frame();
    expect(frame).toContain('AGENTS (0)');
    expect(frame).toContain('No agents yet');
    expect(frame).toContain('REQUESTS (0)');
    expect(frame).toContain('No pending requests.');
    expect(frame).not.toContain('RECENT EVENTS');
    expectKeyBar(frame);
    expectFits(frame, 100, 24);
    expect(frame).toMatchSnapshot();
  });

  it('busy agents: state, source and age, pane, counts, round trip, and recent events', async () => {
    const view = await renderApp(busy);
    const frame = view.frame();
    const row = (name: string) =>
      frame.split('\n').find((l) => l.includes(` ${name} `)) ?? '';
    expect(row('worker-1')).toMatch(
      /worker-1\s+claude\s+working\s+hook\s+<1m\s+%3\s+0\s+4\s+8\.2s/,
    );
    expect(row('worker-2')).toMatch(
      /worker-2\s+codex\s+working\s+screen\s+3m\s+%4\s+0\s+1\s+640ms/,
    );
    expect(row('controller')).toMatch(/controller\s+claude\s+idle/);
    expect(frame).toContain('RECENT EVENTS');
    expect(frame).toMatch(
      /11:59:48\s+worker-1\s+state\.changed\s+idle → working \(hook\)/,
    );
    expect(frame).toMatch(
      /11:59:00\s+worker-2\s+request\.delivered\s+worker-2-q1\s+paste, 42 chars, waited 1s/,
    );
    expectFits(frame, 100, 30);
    expect(frame).toMatchSnapshot();
  });

  // Issue 32: the live view showed an adopted Claude Code teammate by its
  // agent name (`worker-1.alice`), not as `<lead>/<teammate>` under its lead
  // as `macs status` does. Strategy: a snapshot with a lead and its two
  // teammates (listed after it, as the snapshot orders them): the rows read
  // `worker-1`, then `  worker-1/alice` and `  worker-1/bob`, indented.
  it('a lead’s teammates show as <lead>/<teammate>, indented under it', async () => {
    const teammate = (name: string, pane: string) =>
      makeAgent({
        name: `worker-1.${name}`,
        pane,
        teammate: {
          lead: 'worker-1',
          name,
          shownAs: `worker-1/${name}`,
          team: 'team-1',
        },
      });
    const view = await renderApp(
      makeSnapshot({
        agents: [
          makeAgent(),
          teammate('alice', '%5'),
          teammate('bob', '%6'),
          makeAgent({ name: 'worker-2', pane: '%4' }),
        ],
      }),
    );
    const rows = view
      .frame()
      .split('\n')
      .filter((l) => /%[3-6]/.test(l));
    const names = rows.map((l) => /worker-\S+/.exec(l)?.[0] ?? '');
    expect(names).toEqual([
      'worker-1',
      'worker-1/alice',
      'worker-1/bob',
      'worker-2',
    ]);
    // Where each name begins: the teammates two columns in.
    const at = rows.map((l, i) => l.indexOf(names[i] ?? '?'));
    expect(at).toEqual([at[0], (at[0] ?? 0) + 2, (at[0] ?? 0) + 2, at[0]]);
    expect(view.frame()).not.toContain('worker-1.alice');
  });

  it('a pending request stands out, is selected first, and enter shows its body, context and the last notes', async () => {
    const view = await renderApp(withRequest);
    let frame = view.frame();
    expect(frame).toContain('REQUESTS (1)  ● 1 waiting for you');
    expect(frame).toContain('1 needs you');
    expect(frame).toMatch(
      /›● +2m worker-1 question +needs you +Should I migrate/,
    );
    await view.press(KEYS.enter);
    frame = view.frame();
    expect(frame).toContain('DETAIL request worker-1-q-17');
    expect(frame).toContain('● waiting for you: r answers here');
    expect(frame).toContain('Options: (a) now (b) later');
    expect(frame).toContain('branch: feature/users');
    expect(frame).toContain(
      'notes: It keeps asking about test runners; add it to the plan.',
    );
    expect(frame).toContain('worker-1-q-16 · delivered 9m ago');
    expectFits(frame, 100, 30);
    expect(frame).toMatchSnapshot();
    await view.press(KEYS.escape);
    expect(view.frame()).not.toContain('DETAIL');
  });

  it('an agent in approval shows its state and source; its detail says so', async () => {
    const view = await renderApp(
      makeSnapshot({
        agents: [
          makeAgent({
            state: 'approval',
            stateSource: 'hook',
            stateSince: ago(75_000),
            stateAgeMs: 75_000,
          }),
        ],
      }),
    );
    expect(view.frame()).toMatch(/› worker-1\s+claude\s+approval\s+hook\s+1m/);
    await view.press(KEYS.enter);
    const frame = view.frame();
    expect(frame).toContain('DETAIL agent worker-1');
    expect(frame).toContain('approval (hook) for 1m');
    expect(frame).toMatchSnapshot();
  });

  it('a dead agent without its bridge, and a paused one, are flagged', async () => {
    const view = await renderApp(
      makeSnapshot({
        agents: [
          makeAgent({
            state: 'dead',
            stateSource: 'pane',
            bridge: { running: false, pid: null },
          }),
          makeAgent({ name: 'worker-2', pane: '%4', paused: true }),
        ],
      }),
    );
    const frame = view.frame();
    expect(frame).toMatch(
      /worker-1\s+claude\s+dead\s+pane\s+<1m\s+%3\s+0\s+0\s+—\s+-\s+no bridge/,
    );
    expect(frame).toMatch(/worker-2\s+claude\s+idle\s+screen.*paused/);
    expect(frame).toContain('1 paused');
    expect(frame).toMatchSnapshot();
  });

  it('a narrow, short terminal drops columns first, then panels, and still lists every key', async () => {
    const snapshot = { ...withRequest, events: busy.events };
    const wide = (
      await renderApp(snapshot, { columns: 100, rows: 30 })
    ).frame();
    expect(wide).toContain('PRESET');
    expect(wide).toContain('RECENT EVENTS');
    // Narrow: columns go first, by priority.
    const narrow = (
      await renderApp(snapshot, { columns: 44, rows: 30 })
    ).frame();
    expect(narrow).not.toContain('PRESET');
    expect(narrow).not.toContain('LAST RT');
    expect(narrow).not.toContain('SOURCE');
    expect(narrow).toMatch(/AGENT +STATE +FOR +PEND/);
    expect(narrow).toMatch(/›● +2m worker-1 needs you +Should I/);
    expect(narrow).toContain('RECENT EVENTS');
    expectKeyBar(narrow);
    expectFits(narrow, 44, 30);
    expect(narrow).toMatchSnapshot();
    // Short as well: the events panel goes, and a compact key bar lists every key.
    const short = (
      await renderApp(snapshot, { columns: 44, rows: 12 })
    ).frame();
    expect(short).toContain('AGENTS (1)');
    expect(short).toContain('REQUESTS (1)');
    expect(short).not.toContain('RECENT EVENTS');
    expect(short).toMatch(/keys: ↑↓\/jk enter r e d p a \? help q quit/);
    expectFits(short, 44, 12);
    expect(short).toMatchSnapshot();
    // Tiny: the requests stay, the agents go.
    const tiny = (await renderApp(snapshot, { columns: 30, rows: 9 })).frame();
    expect(tiny).toContain('REQUESTS (1)');
    expect(tiny).not.toContain('AGENTS');
    expectFits(tiny, 30, 9);
  });

  it('follows new snapshots as they come (no polling in the view)', async () => {
    const view = await renderApp(makeSnapshot());
    expect(view.frame()).toContain('AGENTS (0)');
    view.source.push(withRequest);
    await view.press();
    expect(view.frame()).toContain('REQUESTS (1)');
    expect(view.frame()).toContain('Should I migrate');
  });
});

describe('the status view, keys', () => {
  it('j/k and the arrows move the selection over agents and requests', async () => {
    const snapshot = makeSnapshot({
      agents: [makeAgent(), makeAgent({ name: 'worker-2', pane: '%4' })],
      requests: [makeRequest()],
    });
    const view = await renderApp(snapshot);
    const selectedLine = () =>
      view
        .frame()
        .split('\n')
        .find((l) => l.startsWith('›')) ?? '';
    expect(selectedLine()).toContain('Should I migrate');
    await view.press('k');
    expect(selectedLine()).toContain('worker-2');
    await view.press(KEYS.up, KEYS.up);
    expect(selectedLine()).toContain('worker-1');
    await view.press('j', KEYS.down);
    expect(selectedLine()).toContain('Should I migrate');
    await view.press('j');
    expect(selectedLine()).toContain('Should I migrate');
  });

  it('r answers inline: several lines, Ctrl-D sends; the editor shows how to send', async () => {
    const view = await renderApp(withRequest);
    await view.press('r');
    let frame = view.frame();
    expect(frame).toContain('ANSWER worker-1-q-17 (worker-1)');
    expect(frame).toContain('Ctrl-D send');
    expect(frame).toContain('Esc cancel');
    expect(frame).toContain('Q: Should I migrate');
    await view.press('WORKER INSTRUCTIONS:', KEYS.enter, 'Migrate later.');
    await view.press(
      KEYS.enter,
      'oops',
      KEYS.backspace,
      KEYS.backspace,
      KEYS.backspace,
      KEYS.backspace,
      KEYS.backspace,
    );
    await view.press(
      KEYS.enter,
      'NOTES:',
      KEYS.enter,
      'watch it',
      KEYS.ctrlU,
      'keep an eye on it',
    );
    frame = view.frame();
    expect(frame).toContain('│Migrate later.');
    expect(frame).toContain('│keep an eye on it█');
    await view.press(KEYS.ctrlD);
    expect(view.calls).toEqual([
      {
        intent: 'answer',
        args: [
          'worker-1-q-17',
          'WORKER INSTRUCTIONS:\nMigrate later.\nNOTES:\nkeep an eye on it',
        ],
      },
    ]);
    expect(view.frame()).not.toContain('ANSWER worker-1-q-17');
    expect(view.frame()).toContain('done');
  });

  it('the message of an answer written goes once the request is delivered, and never carries into another session', async () => {
    // Bug (issue 29): "answered … the bridge delivers it" stayed on the
    // message line until a key was pressed (ten minutes later, in another
    // session), long after it stopped being true. Strategy: answer in the
    // view, then push the snapshots a running view would read: the request
    // delivered (gone from the open requests), and a new session whose
    // request has the same id; the message must go with each.
    const answered = {
      ok: true,
      message:
        'answered worker-1-q-17 (2 chars) -> outbox/worker-1-q-17.txt; the bridge delivers it',
    };
    const said = 'the bridge delivers it';
    const answerIn = async (snapshot: Snapshot) => {
      const source = createFixedSource(snapshot);
      const { intents } = recordingIntents(answered);
      const view = await renderInk(
        <App
          source={source}
          intents={intents}
          now={NOW}
          columns={140}
          rows={30}
        />,
      );
      await view.press('r', 'ok', KEYS.ctrlD);
      expect(view.frame()).toContain(said);
      return { ...view, source };
    };
    const delivered = await answerIn(withRequest);
    // The bridge typed it in: another request arriving keeps it (still true).
    delivered.source.push({ ...withRequest, generatedAt: ago(-1000) });
    await delivered.press();
    expect(delivered.frame()).toContain(said);
    delivered.source.push({ ...withRequest, requests: [] });
    await delivered.press();
    expect(delivered.frame()).not.toContain(said);

    const restarted = await answerIn(withRequest);
    restarted.source.push({
      ...withRequest,
      session: { status: 'running', id: 'another-session', since: ago(1000) },
    });
    await restarted.press();
    expect(restarted.frame()).not.toContain(said);
  });

  it('Esc cancels an inline answer, and an empty one is not sent', async () => {
    const view = await renderApp(withRequest);
    await view.press('r', KEYS.ctrlD);
    expect(view.frame()).toContain('the answer is empty');
    await view.press('maybe', KEYS.escape);
    expect(view.frame()).toContain('answer cancelled');
    expect(view.calls).toEqual([]);
  });

  it('e answers in $EDITOR, p pauses, a jumps, each through an intent', async () => {
    const view = await renderApp(withRequest);
    await view.press('e');
    await view.press('p');
    await view.press('a');
    expect(
      view.calls.map((c) => [
        c.intent,
        ...c.args.map((a) =>
          typeof a === 'object' && a && 'id' in a ? a.id : a,
        ),
      ]),
    ).toEqual([
      ['editAnswer', 'worker-1-q-17'],
      ['setPaused', 'worker-1', true],
      ['jumpToPane', 'worker-1', '%3'],
    ]);
  });

  it('r on an agent, or on a request not waiting for a person, explains why not', async () => {
    const view = await renderApp(
      makeSnapshot({
        agents: [makeAgent()],
        requests: [
          makeRequest({
            stage: 'answered',
            waitingForPerson: false,
            answer: {
              requestId: 'worker-1-q-17',
              stage: 'answered',
              instructions: 'go',
              notes: '',
              source: 'outbox',
              receivedAt: ago(1000),
              deliveredAt: null,
            },
          }),
        ],
      }),
    );
    await view.press('r');
    expect(view.frame()).toContain(
      'already answered; it is waiting to be delivered',
    );
    await view.press('k', 'r');
    expect(view.frame()).toContain('select a pending request first');
    expect(view.calls).toEqual([]);
  });

  it('? shows every key with what it does; any key closes it', async () => {
    const view = await renderApp(makeSnapshot({ agents: [makeAgent()] }), {
      rows: 40,
    });
    await view.press('?');
    const frame = view.frame();
    for (const text of [
      'select an agent or a request',
      'show or hide the detail',
      'answer the selected request here',
      'in $EDITOR',
      'pause or resume delivery',
      'jump to',
      'quit',
      'send the answer',
    ])
      expect(frame).toContain(text);
    await view.press('x');
    expect(view.frame()).not.toContain('HELP');
  });
});
