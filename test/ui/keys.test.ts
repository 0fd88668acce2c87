import { describe, expect, it } from 'vitest';
import {
  INITIAL_UI_STATE,
  reduceInput,
  reduceKey,
  resolveSelection,
  splitKeyPresses,
  type KeyPress,
  type UiState,
} from '../../src/ui/keys.js';
import { selectItems } from '../../src/ui/view-model.js';
import { makeAgent, makeRequest, makeSnapshot } from './fixtures.js';

const items = selectItems(
  makeSnapshot({
    agents: [
      makeAgent(),
      makeAgent({ name: 'worker-2', pane: '%4', paused: true }),
    ],
    requests: [
      makeRequest({ id: 'r-exec', backend: 'exec', waitingForPerson: false }),
      makeRequest({ id: 'r-file' }),
    ],
  }),
);
const key = (input: string, extra: Partial<KeyPress> = {}): KeyPress => ({
  input,
  ...extra,
});
const press = (state: UiState, ...keys: KeyPress[]) => {
  let current = state;
  const effects = [];
  for (const k of keys) {
    const result = reduceKey(current, k, items);
    current = result.state;
    effects.push(...result.effects);
  }
  return { state: current, effects };
};
const selected = (state: UiState) => resolveSelection(state, items).item?.key;

describe('selection', () => {
  it('starts on the first request that waits for a person', () => {
    expect(selected(INITIAL_UI_STATE)).toBe('request:r-file');
  });

  it('falls back to the first request, then the first agent', () => {
    const noWaiting = selectItems(
      makeSnapshot({
        agents: [makeAgent()],
        requests: [makeRequest({ waitingForPerson: false })],
      }),
    );
    expect(resolveSelection(INITIAL_UI_STATE, noWaiting).item?.kind).toBe(
      'request',
    );
    const agentsOnly = selectItems(makeSnapshot({ agents: [makeAgent()] }));
    expect(resolveSelection(INITIAL_UI_STATE, agentsOnly).item?.key).toBe(
      'agent:worker-1',
    );
    expect(resolveSelection(INITIAL_UI_STATE, [])).toEqual({
      index: -1,
      item: undefined,
    });
  });

  it('moves with j/k and arrows, stops at the ends, and stays near a row that went away', () => {
    const { state } = press(
      INITIAL_UI_STATE,
      key('k'),
      key('', { upArrow: true }),
    );
    expect(selected(state)).toBe('agent:worker-2');
    expect(selected(press(state, key('k'), key('k'), key('k')).state)).toBe(
      'agent:worker-1',
    );
    expect(
      selected(
        press(state, key('j'), key('', { downArrow: true }), key('j')).state,
      ),
    ).toBe('request:r-file');
    const gone = { ...state, selectedKey: 'request:gone', selectedIndex: 9 };
    expect(selected(gone)).toBe('request:r-file');
  });
});

describe('keys', () => {
  it('enter toggles the detail; esc closes it', () => {
    const open = press(INITIAL_UI_STATE, key('', { return: true })).state;
    expect(open.detailOpen).toBe(true);
    expect(press(open, key('', { escape: true })).state.detailOpen).toBe(false);
    expect(press(open, key('', { return: true })).state.detailOpen).toBe(false);
  });

  it('r on a file-backend request opens the inline answer; on others it explains', () => {
    const { state } = press(INITIAL_UI_STATE, key('r'));
    expect(state.mode).toEqual({
      type: 'answer',
      requestId: 'r-file',
      agent: 'worker-1',
      text: '',
    });
    const onExec = press(INITIAL_UI_STATE, key('k'), key('r')).state;
    expect(onExec.mode.type).toBe('browse');
    expect(onExec.message?.text).toContain('answered by the exec backend');
    const onAgent = press(INITIAL_UI_STATE, key('k'), key('k'), key('e')).state;
    expect(onAgent.message?.text).toContain('select a pending request first');
  });

  it('the inline answer: text, paste with CR line ends, Enter, Backspace, Ctrl-U, Ctrl-D', () => {
    const { state, effects } = press(
      INITIAL_UI_STATE,
      key('r'),
      key('first'),
      key('', { return: true }),
      key('pasted\r\nlines\r'),
      key('xy'),
      key('', { backspace: true }),
      key('', { delete: true }),
      key('u', { ctrl: true }),
      key('last'),
      key('q'),
      key('j'),
      key('?'),
    );
    expect(state.mode).toMatchObject({
      type: 'answer',
      text: 'first\npasted\nlines\nlastqj?',
    });
    expect(effects).toEqual([]);
    const sent = press(state, key('d', { ctrl: true }));
    expect(sent.effects).toEqual([
      {
        type: 'answer',
        requestId: 'r-file',
        text: 'first\npasted\nlines\nlastqj?',
      },
    ]);
    expect(sent.state.mode.type).toBe('browse');
  });

  it('an empty answer is not sent; esc cancels', () => {
    const empty = press(
      INITIAL_UI_STATE,
      key('r'),
      key('  '),
      key('d', { ctrl: true }),
    );
    expect(empty.effects).toEqual([]);
    expect(empty.state.mode.type).toBe('answer');
    const cancelled = press(empty.state, key('', { escape: true }));
    expect(cancelled.state.mode.type).toBe('browse');
    expect(cancelled.state.message?.text).toBe('answer cancelled');
  });

  it('e, p, a and q become effects for the selected row', () => {
    expect(press(INITIAL_UI_STATE, key('e')).effects).toEqual([
      { type: 'edit', requestId: 'r-file' },
    ]);
    expect(press(INITIAL_UI_STATE, key('p')).effects).toEqual([
      { type: 'set-paused', agent: 'worker-1', paused: true },
    ]);
    // worker-2 is paused: p resumes it.
    expect(
      press(INITIAL_UI_STATE, key('k'), key('k'), key('p')).effects,
    ).toEqual([{ type: 'set-paused', agent: 'worker-2', paused: false }]);
    expect(press(INITIAL_UI_STATE, key('a')).effects).toEqual([
      { type: 'jump', agent: 'worker-1', pane: '%3' },
    ]);
    expect(press(INITIAL_UI_STATE, key('q')).effects).toEqual([
      { type: 'quit', interrupted: false },
    ]);
  });

  it('d asks first: y (or d again) dismisses the selected request, any other key keeps it', () => {
    const asked = press(INITIAL_UI_STATE, key('d'));
    expect(asked.effects).toEqual([]);
    expect(asked.state.mode).toEqual({
      type: 'confirm-dismiss',
      requestId: 'r-file',
    });
    expect(press(asked.state, key('y')).effects).toEqual([
      { type: 'dismiss', requestId: 'r-file' },
    ]);
    expect(press(asked.state, key('d')).effects).toEqual([
      { type: 'dismiss', requestId: 'r-file' },
    ]);
    const kept = press(asked.state, key('n'));
    expect(kept.effects).toEqual([]);
    expect(kept.state.mode.type).toBe('browse');
    // On an agent row there is nothing to dismiss.
    const onAgent = press(INITIAL_UI_STATE, key('k'), key('k'), key('d'));
    expect(onAgent.effects).toEqual([]);
    expect(onAgent.state.mode.type).toBe('browse');
  });

  it('Ctrl-C quits as interrupted, but in the answer box it only cancels the answer', () => {
    expect(press(INITIAL_UI_STATE, key('c', { ctrl: true })).effects).toEqual([
      { type: 'quit', interrupted: true },
    ]);
    const answering = press(
      INITIAL_UI_STATE,
      key('r'),
      key('half an answer'),
    ).state;
    const cancelled = press(answering, key('c', { ctrl: true }));
    expect(cancelled.effects).toEqual([]);
    expect(cancelled.state.mode.type).toBe('browse');
  });

  it('? opens the help; any key closes it, q still quits', () => {
    const help = press(INITIAL_UI_STATE, key('?')).state;
    expect(help.mode.type).toBe('help');
    expect(press(help, key('j')).state.mode.type).toBe('browse');
    expect(press(help, key('q')).effects).toEqual([
      { type: 'quit', interrupted: false },
    ]);
  });

  it('a key clears the last message', () => {
    const said = press(INITIAL_UI_STATE, key('k'), key('k'), key('r')).state;
    expect(said.message).toBeDefined();
    expect(press(said, key('j')).state.message).toBeUndefined();
  });
});

describe('keys that arrive together', () => {
  // Regression: ink hands plain text over as one chunk, so keys sent in a row
  // (`k`, Enter, `q` from tmux send-keys, or typing fast) arrived as "k\rq" and
  // were ignored, and "not yet\x04" was typed into the answer instead of sent.
  // Strategy: split every read into single key presses before reducing.
  it('splits text, control characters and line ends', () => {
    expect(splitKeyPresses(key('ab\rc\u0004d\u007f'))).toEqual([
      { input: 'ab' },
      { input: '', return: true },
      { input: 'c' },
      { input: 'd', ctrl: true },
      { input: 'd' },
      { input: '', backspace: true },
    ]);
    expect(splitKeyPresses(key('d', { ctrl: true }))).toEqual([
      key('d', { ctrl: true }),
    ]);
  });

  it('runs each key of a chunk in browse mode', () => {
    const { state, effects } = reduceInput(
      INITIAL_UI_STATE,
      key('k\rq'),
      items,
    );
    expect(selected(state)).toBe('request:r-exec');
    expect(state.detailOpen).toBe(true);
    expect(effects).toEqual([{ type: 'quit', interrupted: false }]);
  });

  it('r and the answer in one chunk: the rest is typed, Ctrl-D sends', () => {
    const { effects } = reduceInput(
      INITIAL_UI_STATE,
      key('rnot yet\rreally\u0004'),
      items,
    );
    expect(effects).toEqual([
      { type: 'answer', requestId: 'r-file', text: 'not yet\nreally' },
    ]);
  });
});
