/**
 * The view's key handling as a pure reducer: (state, key, rows) -> (state,
 * effects). The App turns ink's key events into `KeyPress`es and runs the
 * effects through the intents. No React here.
 */
import type { MessageTone, UiMessage } from './message.js';
import { whyNotAnswerable, type SelectableItem } from './view-model.js';

/** One key press, as ink reports it (only what the view uses). */
export interface KeyPress {
  input: string;
  upArrow?: boolean;
  downArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  return?: boolean;
  escape?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
  meta?: boolean;
  tab?: boolean;
}

export type UiMode =
  | { type: 'browse' }
  | { type: 'help' }
  | { type: 'answer'; requestId: string; agent: string; text: string }
  /** `d` pressed on a request: `y` (or `d` again) dismisses it. */
  | { type: 'confirm-dismiss'; requestId: string };

export type { MessageTone } from './message.js';

export interface UiState {
  /** The selected row's key; undefined until the user moves (then the default row). */
  selectedKey: string | undefined;
  /** Where the selection was, to stay near it when its row goes away. */
  selectedIndex: number;
  detailOpen: boolean;
  mode: UiMode;
  /** The message line (message.ts says how long it holds). */
  message: UiMessage | undefined;
}

export type UiEffect =
  | { type: 'answer'; requestId: string; text: string }
  | { type: 'edit'; requestId: string }
  | { type: 'set-paused'; agent: string; paused: boolean }
  | { type: 'dismiss'; requestId: string }
  | { type: 'jump'; agent: string; pane: string | null }
  /** `interrupted`: Ctrl-C (exit status 130) rather than `q`. */
  | { type: 'quit'; interrupted: boolean };

export interface KeyResult {
  state: UiState;
  effects: UiEffect[];
}

export const INITIAL_UI_STATE: UiState = {
  selectedKey: undefined,
  selectedIndex: 0,
  detailOpen: false,
  mode: { type: 'browse' },
  message: undefined,
};

/** The keys of the view, as the key bar and the help list show them. */
export const BROWSE_KEYS: readonly { keys: string; does: string }[] = [
  { keys: '↑/↓ j/k', does: 'select an agent or a request' },
  { keys: 'enter', does: 'show or hide the detail of the selected row' },
  { keys: 'r', does: 'answer the selected request here (file backend)' },
  { keys: 'e', does: 'answer the selected request in $EDITOR' },
  {
    keys: 'd',
    does: 'dismiss the selected request (end it unanswered; asks first)',
  },
  { keys: 'p', does: "pause or resume delivery to the selected row's agent" },
  { keys: 'a', does: "jump to the selected row's agent pane in tmux" },
  { keys: '?', does: 'show or hide this help' },
  { keys: 'esc', does: 'close the detail or the help' },
  { keys: 'q', does: 'quit (Ctrl-C too)' },
];

export const ANSWER_KEYS: readonly { keys: string; does: string }[] = [
  { keys: 'Ctrl-D', does: 'send the answer' },
  { keys: 'Enter', does: 'new line' },
  { keys: 'Backspace', does: 'delete the last character' },
  { keys: 'Ctrl-U', does: 'delete the current line' },
  { keys: 'Esc', does: 'cancel (Ctrl-C too)' },
];

/**
 * The row the cursor is on: the row with the selected key; if it went away,
 * the row now at its old position; before the user moved, the first request
 * that waits for a person, else the first request, else the first agent.
 */
export function resolveSelection(
  state: Pick<UiState, 'selectedKey' | 'selectedIndex'>,
  items: readonly SelectableItem[],
): { index: number; item: SelectableItem | undefined } {
  if (items.length === 0) return { index: -1, item: undefined };
  if (state.selectedKey !== undefined) {
    const at = items.findIndex((i) => i.key === state.selectedKey);
    if (at >= 0) return { index: at, item: items[at] };
    const index = Math.min(Math.max(0, state.selectedIndex), items.length - 1);
    return { index, item: items[index] };
  }
  let index = items.findIndex(
    (i) => i.kind === 'request' && i.request.waitingForPerson,
  );
  if (index < 0) index = items.findIndex((i) => i.kind === 'request');
  if (index < 0) index = 0;
  return { index, item: items[index] };
}

function move(
  state: UiState,
  items: readonly SelectableItem[],
  delta: number,
): UiState {
  if (items.length === 0) return state;
  const { index } = resolveSelection(state, items);
  const next = Math.min(Math.max(0, index + delta), items.length - 1);
  return { ...state, selectedKey: items[next]?.key, selectedIndex: next };
}

function say(state: UiState, text: string, tone: MessageTone): UiState {
  return { ...state, message: { text, tone } };
}

function removeLastChar(text: string): string {
  const chars = [...text];
  chars.pop();
  return chars.join('');
}

function reduceAnswerKey(
  state: UiState,
  mode: Extract<UiMode, { type: 'answer' }>,
  key: KeyPress,
): KeyResult {
  const withText = (text: string): KeyResult => ({
    state: { ...state, mode: { ...mode, text }, message: undefined },
    effects: [],
  });
  if (key.ctrl && key.input === 'd') {
    if (!mode.text.trim())
      return {
        state: say(
          state,
          'the answer is empty: type it, or Esc to cancel',
          'info',
        ),
        effects: [],
      };
    return {
      state: say(
        { ...state, mode: { type: 'browse' } },
        `sending the answer to ${mode.requestId}…`,
        'info',
      ),
      effects: [{ type: 'answer', requestId: mode.requestId, text: mode.text }],
    };
  }
  if (key.escape || (key.ctrl && key.input === 'c'))
    return {
      state: say(
        { ...state, mode: { type: 'browse' } },
        'answer cancelled',
        'info',
      ),
      effects: [],
    };
  if (key.ctrl && key.input === 'u') {
    const cut = mode.text.lastIndexOf('\n');
    return withText(cut < 0 ? '' : mode.text.slice(0, cut + 1));
  }
  if (key.return) return withText(`${mode.text}\n`);
  if (key.backspace || key.delete) return withText(removeLastChar(mode.text));
  if (key.ctrl || key.meta || key.tab || !key.input)
    return { state, effects: [] };
  // Typed or pasted text; a paste's line ends arrive as CR.
  return withText(mode.text + key.input.replace(/\r\n?/g, '\n'));
}

/** Handle one key press. */
export function reduceKey(
  state: UiState,
  key: KeyPress,
  items: readonly SelectableItem[],
): KeyResult {
  const mode = state.mode;
  if (mode.type === 'answer') return reduceAnswerKey(state, mode, key);
  if (mode.type === 'confirm-dismiss') {
    const browse: UiState = { ...state, mode: { type: 'browse' } };
    if (!key.ctrl && (key.input === 'y' || key.input === 'd'))
      return {
        state: say(browse, `dismissing ${mode.requestId}…`, 'info'),
        effects: [{ type: 'dismiss', requestId: mode.requestId }],
      };
    return { state: say(browse, 'not dismissed', 'info'), effects: [] };
  }
  const none = (next: UiState): KeyResult => ({ state: next, effects: [] });
  const cleared: UiState = { ...state, message: undefined };
  if (key.ctrl && key.input === 'c')
    return { state: cleared, effects: [{ type: 'quit', interrupted: true }] };
  if (mode.type === 'help') {
    if (key.input === 'q' && !key.ctrl)
      return {
        state: cleared,
        effects: [{ type: 'quit', interrupted: false }],
      };
    return none({ ...cleared, mode: { type: 'browse' } });
  }
  if (key.upArrow || (key.input === 'k' && !key.ctrl))
    return none(move(cleared, items, -1));
  if (key.downArrow || (key.input === 'j' && !key.ctrl))
    return none(move(cleared, items, 1));
  if (key.pageUp) return none(move(cleared, items, -10));
  if (key.pageDown) return none(move(cleared, items, 10));
  if (key.return) return none({ ...cleared, detailOpen: !state.detailOpen });
  if (key.escape) return none({ ...cleared, detailOpen: false });
  if (key.ctrl || key.meta) return none(state);
  const { item } = resolveSelection(state, items);
  switch (key.input) {
    case 'q':
      return {
        state: cleared,
        effects: [{ type: 'quit', interrupted: false }],
      };
    case '?':
      return none({ ...cleared, mode: { type: 'help' } });
    case 'r':
    case 'e': {
      if (item?.kind !== 'request')
        return none(
          say(cleared, 'select a pending request first (↑/↓ or j/k)', 'info'),
        );
      const why = whyNotAnswerable(item.request);
      if (why) return none(say(cleared, why, 'info'));
      if (key.input === 'e')
        return {
          state: say(
            cleared,
            `opening $EDITOR for ${item.request.id}…`,
            'info',
          ),
          effects: [{ type: 'edit', requestId: item.request.id }],
        };
      return none({
        ...cleared,
        mode: {
          type: 'answer',
          requestId: item.request.id,
          agent: item.request.agent,
          text: '',
        },
      });
    }
    case 'd': {
      if (item?.kind !== 'request')
        return none(
          say(cleared, 'select a pending request first (↑/↓ or j/k)', 'info'),
        );
      return none(
        say(
          {
            ...cleared,
            mode: { type: 'confirm-dismiss', requestId: item.request.id },
          },
          `dismiss ${item.request.id} without an answer? y to confirm, any other key keeps it`,
          'info',
        ),
      );
    }
    case 'p': {
      const agent = item?.agent;
      if (!agent)
        return none(say(cleared, 'select an agent or a request first', 'info'));
      return {
        state: cleared,
        effects: [
          { type: 'set-paused', agent: agent.name, paused: !agent.paused },
        ],
      };
    }
    case 'a': {
      const agent = item?.agent;
      if (!agent)
        return none(say(cleared, 'select an agent or a request first', 'info'));
      return {
        state: cleared,
        effects: [{ type: 'jump', agent: agent.name, pane: agent.pane }],
      };
    }
    default:
      return none(state);
  }
}

/**
 * One read from the terminal as single key presses. ink hands over plain
 * text as one chunk however many keys it holds: keys typed quickly (or sent
 * by `tmux send-keys` in a row) arrive together, e.g. `k\rq` or
 * `not yet\x04`, and Esc with the next key reads as Alt+key. Control
 * characters become keys of their own (CR/LF: return, DEL/BS: backspace,
 * tab, 0x01–0x1a: Ctrl+letter); the text in between stays one chunk, so a
 * paste into the answer stays whole.
 */
export function splitKeyPresses(key: KeyPress): KeyPress[] {
  // ESC and a key sent together read as Alt+key; the view binds no Alt keys.
  if (key.meta && key.input && !key.ctrl)
    return [
      { input: '', escape: true },
      ...splitKeyPresses({ input: key.input }),
    ];
  const chars = [...key.input];
  if (chars.length <= 1 || key.ctrl || key.meta) return [key];
  const out: KeyPress[] = [];
  let text = '';
  const flush = () => {
    if (text) out.push({ input: text });
    text = '';
  };
  for (const ch of chars) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '\r' || ch === '\n') {
      flush();
      out.push({ input: '', return: true });
    } else if (ch === '\u007f' || ch === '\b') {
      flush();
      out.push({ input: '', backspace: true });
    } else if (ch === '\t') {
      flush();
      out.push({ input: '', tab: true });
    } else if (code >= 1 && code <= 26) {
      flush();
      out.push({ input: String.fromCharCode(code + 96), ctrl: true });
    } else if (code < 32) {
      flush();
    } else text += ch;
  }
  flush();
  return out;
}

/**
 * Handle one read from the terminal: its keys one after another. Outside
 * the answer box every character of a text chunk is a key of its own; in
 * it, text is typed as a whole (a paste).
 */
export function reduceInput(
  state: UiState,
  key: KeyPress,
  items: readonly SelectableItem[],
): KeyResult {
  let current = state;
  const effects: UiEffect[] = [];
  const apply = (press: KeyPress) => {
    const result = reduceKey(current, press, items);
    current = result.state;
    effects.push(...result.effects);
  };
  for (const press of splitKeyPresses(key)) {
    const chars = [...press.input];
    if (chars.length <= 1 || press.ctrl) {
      apply(press);
      continue;
    }
    // Text: one key at a time until a key opens the answer box; the rest is typed into it.
    for (let i = 0; i < chars.length; i += 1) {
      if (current.mode.type === 'answer') {
        apply({ input: chars.slice(i).join('') });
        break;
      }
      apply({ input: chars[i] ?? '' });
    }
  }
  return { state: current, effects };
}
