import { setTimeout as delay } from 'node:timers/promises';
import { sanitizeText } from '../protocol/sanitize.js';
import type { AgentStateName } from '../state/types.js';
import type { TmuxClient } from '../tmux/client.js';
import { PaneNotFoundError } from '../tmux/client.js';

/** How text is typed into one kind of agent (from its preset). */
export interface DeliveryRules {
  submitKey: string;
  submitDelayMs: number;
  /** Paste bracketed (`paste-buffer -p`) so newlines do not submit early. */
  bracketed: boolean;
  /** A single line up to this many characters is typed with `send-keys -l`. */
  maxLiteralChars: number;
  /**
   * A screen no rule reads (`unknown`) may be typed into: a program macs
   * has no preset for. False for a known agent (preset `knownScreens`).
   */
  typeIntoUnknown: boolean;
}

export const DEFAULT_DELIVERY_RULES: DeliveryRules = {
  submitKey: 'Enter',
  submitDelayMs: 200,
  bracketed: true,
  maxLiteralChars: 200,
  typeIntoUnknown: true,
};

/**
 * States in which typing is allowed: `idle`, and, for a program macs has
 * no preset for (`typeIntoUnknown`), `unknown`: a screen no rule reads,
 * such as that program at a prompt macs does not know, or a shell running
 * a command, which shows no sign of being busy or asking (a request may ask
 * for a quiet screen first: `unknownQuietMs`). A known agent's `unknown`
 * (a sign-in menu, an overlay, the shell it exited to) is never typed into.
 * Never `working`, `approval`, `error` or `dead`.
 */
export function canTypeInto(
  state: AgentStateName,
  typeIntoUnknown = true,
): boolean {
  return state === 'idle' || (state === 'unknown' && typeIntoUnknown);
}

/** Confirming a submission (SPEC §6 step 6). */
export interface ConfirmOptions {
  /** How often the submit key is pressed again when nothing shows it was taken. */
  retries: number;
  /** Another sign the agent took the text (its UserPromptSubmit hook). */
  confirmed?: () => boolean;
  /**
   * When the screen shows the text was taken, wait up to this long for
   * `confirmed` too, so an agent whose hooks report prompts is confirmed by
   * its hook (hooks win over the screen).
   */
  preferConfirmedMs?: number;
}

export interface DeliveryRequest {
  pane: string;
  text: string;
  rules: DeliveryRules;
  /** The agent's current state (read from its screen, hooks...). */
  readState: () => Promise<AgentStateName>;
  /**
   * The preset's screen rules: after the submit key they tell whether the
   * agent turned `working` (a confirmation).
   */
  classify?: (screen: string) => AgentStateName;
  /**
   * Type into `unknown` only once the screen has not changed for this long
   * (default 0: at once). `readState` must read the pane afresh each time
   * it is called when the text may be typed on its word.
   */
  unknownQuietMs?: number;
  /** Confirm the submission and re-send the submit key (off when absent). */
  confirm?: ConfirmOptions;
  /** Delivery to this agent is paused by a person. */
  isPaused?: () => boolean;
  /** Report (once) that the agent has been busy longer than this. */
  deliverTimeoutMs?: number;
  onWaitingTooLong?: (
    state: AgentStateName,
    waitedMs: number,
  ) => void | Promise<void>;
  /**
   * Called after waiting, right before the first keystroke. Resolving to
   * `false` types nothing (someone else delivered the text: the agent's Stop
   * hook) and the result is `aborted`.
   */
  beforeType?: () => void | boolean | Promise<void | boolean>;
  /** Called once the text is in the pane, before the submit key. */
  afterPaste?: () => void | Promise<void>;
  /** Called right before the submit key is pressed the first time. */
  beforeSubmit?: () => void | Promise<void>;
  /** Called once the submit key has been pressed the first time. */
  onSubmitted?: (delivery: {
    method: 'paste' | 'literal';
    chars: number;
    waitedMs: number;
  }) => void | Promise<void>;
  /** Give up waiting (the bridge is stopping). */
  signal?: AbortSignal;
}

/** What showed that the agent took a submission. */
export type ConfirmSignal =
  /** The screen turned `working` (or showed a dialog the prompt led to). */
  | 'working'
  /** The composer no longer holds the text that was typed. */
  | 'composer'
  /** The text was not to be seen, and the screen or the cursor changed. */
  | 'screen'
  /** The agent's own hook said so. */
  | 'hook';

export type DeliveryResult =
  | {
      type: 'delivered';
      method: 'paste' | 'literal';
      chars: number;
      waitedMs: number;
      /** Times the submit key was pressed. */
      submits?: number;
      /** With `confirm`: whether the agent was seen taking the text. */
      confirmed?: boolean;
      confirmation?: ConfirmSignal;
    }
  | { type: 'empty' }
  | { type: 'pane-gone'; state: AgentStateName }
  | { type: 'aborted' };

export interface Deliverer {
  /** Deliver text to a pane; deliveries to one pane run one at a time, in order. */
  deliver(request: DeliveryRequest): Promise<DeliveryResult>;
}

export interface DelivererOptions {
  /** How often the agent's state is read while waiting. */
  pollMs?: number;
  /** How long one press of the submit key is watched for a confirmation. */
  confirmTimeoutMs?: number;
  /** How often the screen is read while confirming. */
  confirmPollMs?: number;
}

const WAIT_POLL_MS = 50;
/** What `macs send` asks of an `unknown` screen before typing. */
export const UNKNOWN_QUIET_MS = 500;
export const CONFIRM_TIMEOUT_MS = 1_500;
const CONFIRM_POLL_MS = 25;
/** The screen before the submit key is read this long before the key. */
const SNAPSHOT_LEAD_MS = 40;
/** The tail of the typed text looked for in the composer. */
const PROBE_CHARS = 16;

interface PaneView {
  screen: string;
  /** What the composer holds before the cursor (composerText). */
  composer: string;
  /** Where the cursor is (`x,y`). */
  cursor: string;
  dead: boolean;
  inMode: boolean;
}

/** The last PROBE_CHARS non-space characters of the text's last line. */
export function composerProbe(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const last = (lines[lines.length - 1] ?? '').replace(/\s+/g, '');
  return [...last].slice(-PROBE_CHARS).join('');
}

/**
 * What the composer holds just before the cursor, whitespace removed: the
 * cursor's row up to the cursor, and the row above when that is shorter
 * than a probe and the row above is full (`width` columns: the text wrapped
 * there). A shorter row above is other output, such as a line program's
 * echo of text it already took, and never counts. Without a cursor
 * position, the last non-blank row.
 */
export function composerText(
  screen: string,
  cursorX: number | undefined,
  cursorY: number | undefined,
  width: number,
): string {
  const rows = screen.replace(/\n$/, '').split('\n');
  const squeeze = (row: string | undefined) => (row ?? '').replace(/\s+/g, '');
  if (cursorY === undefined) {
    for (let i = rows.length - 1; i >= 0; i -= 1) {
      const row = squeeze(rows[i]);
      if (row !== '') return row;
    }
    return '';
  }
  const row = rows[cursorY] ?? '';
  const upToCursor = squeeze(
    cursorX === undefined ? row : [...row].slice(0, cursorX).join(''),
  );
  if ([...upToCursor].length >= PROBE_CHARS) return upToCursor;
  const above = rows[cursorY - 1] ?? '';
  return [...above].length >= width ? squeeze(above) + upToCursor : upToCursor;
}

/** The text as it is typed: sanitized, trailing newlines dropped. */
export function typedText(text: string): string {
  return sanitizeText(text).replace(/\n+$/, '');
}

/** How long a pane must not change before its composer is read after a restart. */
export const COMPOSER_QUIET_MS = 500;
/** The longest wait for that quiet (a pane that never stops changing). */
export const COMPOSER_QUIET_MAX_MS = 5000;

/**
 * Whether the pane's composer ends with `text` as it would be typed (its
 * last PROBE_CHARS non-space characters, just before the cursor): the text
 * was typed and not submitted. Read once the pane has stopped changing for
 * `quietMs` (at most `maxMs`): keys a killed bridge sent are still on their
 * way to the program for a moment (a busy machine: longer), so a composer
 * read at once may not show text that is about to appear there, or still
 * show text whose submit key is about to be taken. False for a dead or
 * missing pane, and for text with nothing to look for.
 */
export async function composerHolds(
  tmux: TmuxClient,
  pane: string,
  text: string,
  options: { quietMs?: number; maxMs?: number; pollMs?: number } = {},
): Promise<boolean> {
  const probe = composerProbe(typedText(text));
  if (probe === '') return false;
  const quietMs = options.quietMs ?? COMPOSER_QUIET_MS;
  const deadline = Date.now() + (options.maxMs ?? COMPOSER_QUIET_MAX_MS);
  let last: string | undefined;
  let since = Date.now();
  try {
    for (;;) {
      const info = await tmux.paneInfo(pane);
      if (info.dead) return false;
      const screen = await tmux.capturePane(pane);
      const seen = `${String(info.cursorX)},${String(info.cursorY)}\n${screen}`;
      if (seen !== last) {
        last = seen;
        since = Date.now();
      }
      const now = Date.now();
      if (now - since >= quietMs || now >= deadline)
        return composerText(
          screen,
          info.cursorX,
          info.cursorY,
          info.width,
        ).endsWith(probe);
      await delay(options.pollMs ?? WAIT_POLL_MS);
    }
  } catch (error) {
    if (error instanceof PaneNotFoundError) return false;
    throw error;
  }
}

/**
 * Safe delivery (SPEC §6): one delivery at a time per pane; wait until the
 * agent may be typed into (`readState`, read afresh: see canTypeInto);
 * leave copy mode; sanitize; one bracketed paste from a
 * uniquely named buffer (or `send-keys -l --` for a short single line), so
 * text is never read as key names; after the preset's delay, the submit key
 * alone; with `confirm`, watch for the agent taking it and press the submit
 * key again up to `retries` times. The text itself is never typed twice.
 */
export function createDeliverer(
  tmux: TmuxClient,
  options: DelivererOptions = {},
): Deliverer {
  const queues = new Map<string, Promise<unknown>>();
  const pollMs = options.pollMs ?? WAIT_POLL_MS;
  const confirmTimeoutMs = options.confirmTimeoutMs ?? CONFIRM_TIMEOUT_MS;
  const confirmPollMs = options.confirmPollMs ?? CONFIRM_POLL_MS;

  async function view(pane: string): Promise<PaneView> {
    // Both at once: the next delivery may be waiting on this confirmation.
    const [info, screen] = await Promise.all([
      tmux.paneInfo(pane),
      tmux.capturePane(pane).catch((error: unknown) => {
        if (error instanceof PaneNotFoundError) return '';
        throw error;
      }),
    ]);
    if (info.dead)
      return {
        screen: '',
        composer: '',
        cursor: '',
        dead: true,
        inMode: false,
      };
    return {
      screen,
      composer: composerText(screen, info.cursorX, info.cursorY, info.width),
      cursor: `${String(info.cursorX)},${String(info.cursorY)}`,
      dead: false,
      inMode: info.inMode,
    };
  }

  /** Waits until the agent may be typed into. */
  async function waitReady(
    request: DeliveryRequest,
    started: number,
  ): Promise<{ inMode: boolean } | 'gone' | 'aborted'> {
    const quietMs = request.unknownQuietMs ?? 0;
    let reported = false;
    let quietScreen: string | undefined;
    let quietSince = 0;
    for (;;) {
      if (request.signal?.aborted) return 'aborted';
      const state = await request.readState();
      if (state === 'dead') return 'gone';
      if (
        canTypeInto(state, request.rules.typeIntoUnknown) &&
        !request.isPaused?.()
      ) {
        const info = await tmux.paneInfo(request.pane);
        if (info.dead) return 'gone';
        if (state === 'idle' || quietMs <= 0) return { inMode: info.inMode };
        // `unknown` with a quiet period: the screen must stay the same.
        const screen = await tmux.capturePane(request.pane);
        const now = Date.now();
        if (screen !== quietScreen) {
          quietScreen = screen;
          quietSince = now;
        } else if (now - quietSince >= quietMs) return { inMode: info.inMode };
      } else quietScreen = undefined;
      const waited = Date.now() - started;
      if (
        !reported &&
        request.deliverTimeoutMs !== undefined &&
        waited > request.deliverTimeoutMs
      ) {
        reported = true;
        await request.onWaitingTooLong?.(state, waited);
      }
      try {
        await delay(pollMs, undefined, { signal: request.signal });
      } catch {
        return 'aborted';
      }
    }
  }

  /** A screen sign, or the hook's word if it comes within preferConfirmedMs. */
  async function preferHook(
    request: DeliveryRequest,
    seen: ConfirmSignal,
  ): Promise<ConfirmSignal> {
    const confirmed = request.confirm?.confirmed;
    const wait = request.confirm?.preferConfirmedMs ?? 0;
    if (!confirmed || wait <= 0) return seen;
    const until = Date.now() + wait;
    while (Date.now() < until) {
      if (confirmed()) return 'hook';
      try {
        await delay(confirmPollMs, undefined, { signal: request.signal });
      } catch {
        break;
      }
    }
    return confirmed() ? 'hook' : seen;
  }

  /** Watches one press of the submit key; the sign it was taken, if any. */
  async function watchSubmit(
    request: DeliveryRequest,
    before: PaneView,
    probe: string,
  ): Promise<ConfirmSignal | 'gone' | undefined> {
    const heldText = probe !== '' && before.composer.endsWith(probe);
    const until = Date.now() + confirmTimeoutMs;
    for (;;) {
      if (request.confirm?.confirmed?.()) return 'hook';
      const now = await view(request.pane);
      if (now.dead) return 'gone';
      const state = request.classify?.(now.screen);
      if (state === 'working' || state === 'approval') return 'working';
      if (heldText) {
        // Still waiting in the composer: the same text before the cursor,
        // and the cursor where it was. A line program that took the text
        // moved the cursor to a new line, even when its echo of the text
        // sits just above it.
        if (!now.composer.endsWith(probe) || now.cursor !== before.cursor)
          return 'composer';
      } else if (now.screen !== before.screen || now.cursor !== before.cursor)
        // The text was not to be seen (a program that does not echo, a
        // placeholder): any reaction counts. Pressing the key again on a
        // program that took the text would submit a second time.
        return 'screen';
      if (Date.now() >= until) return undefined;
      try {
        await delay(confirmPollMs, undefined, { signal: request.signal });
      } catch {
        return undefined;
      }
    }
  }

  async function run(request: DeliveryRequest): Promise<DeliveryResult> {
    const text = typedText(request.text);
    if (!text.trim()) return { type: 'empty' };
    const started = Date.now();
    let submitted: Extract<DeliveryResult, { type: 'delivered' }> | undefined;
    try {
      const ready = await waitReady(request, started);
      if (ready === 'aborted') return { type: 'aborted' };
      if (ready === 'gone') return { type: 'pane-gone', state: 'dead' };
      const waitedMs = Date.now() - started;
      if (ready.inMode) await tmux.cancelMode(request.pane);
      if ((await request.beforeType?.()) === false) return { type: 'aborted' };
      let method: 'paste' | 'literal';
      if (
        !text.includes('\n') &&
        text.length <= request.rules.maxLiteralChars
      ) {
        await tmux.sendLiteral(request.pane, text);
        method = 'literal';
      } else {
        const buffer = await tmux.loadBuffer(text);
        await tmux.pasteBuffer(request.pane, buffer, {
          bracketed: request.rules.bracketed,
        });
        method = 'paste';
      }
      await request.afterPaste?.();
      const confirm = request.confirm;
      const pastedAt = Date.now();
      const submitDelayMs = request.rules.submitDelayMs;
      // The composer with the text in it, to tell a taken submission by:
      // read near the end of the submit delay, so it costs no extra time.
      await delay(
        confirm ? Math.max(0, submitDelayMs - SNAPSHOT_LEAD_MS) : submitDelayMs,
      );
      const before = confirm ? await view(request.pane) : undefined;
      const left = submitDelayMs - (Date.now() - pastedAt);
      if (left > 0) await delay(left);
      await request.beforeSubmit?.();
      await tmux.sendKey(request.pane, request.rules.submitKey);
      submitted = {
        type: 'delivered',
        method,
        chars: text.length,
        waitedMs,
        submits: 1,
      };
      await request.onSubmitted?.({ method, chars: text.length, waitedMs });
      if (!confirm || !before || before.dead) return submitted;
      const probe = composerProbe(text);
      for (;;) {
        const signal = await watchSubmit(request, before, probe);
        if (signal !== undefined && signal !== 'gone')
          return {
            ...submitted,
            confirmed: true,
            confirmation: await preferHook(request, signal),
          };
        if (
          signal === 'gone' ||
          (submitted.submits ?? 1) > confirm.retries ||
          request.signal?.aborted
        )
          return { ...submitted, confirmed: false };
        // Never the text again: only the submit key, after leaving any mode
        // a person may have entered meanwhile.
        const info = await tmux.paneInfo(request.pane);
        if (info.dead) return { ...submitted, confirmed: false };
        if (info.inMode) await tmux.cancelMode(request.pane);
        await tmux.sendKey(request.pane, request.rules.submitKey);
        submitted = { ...submitted, submits: (submitted.submits ?? 1) + 1 };
      }
    } catch (error) {
      if (!(error instanceof PaneNotFoundError)) throw error;
      // Once the submit key was pressed the text may be in; it is reported
      // as delivered (unconfirmed when confirming), never typed again.
      if (submitted)
        return request.confirm ? { ...submitted, confirmed: false } : submitted;
      return { type: 'pane-gone', state: 'dead' };
    }
  }

  return {
    deliver(request) {
      const previous = queues.get(request.pane) ?? Promise.resolve();
      const next = previous.catch(() => undefined).then(() => run(request));
      queues.set(request.pane, next);
      void next
        .finally(() => {
          if (queues.get(request.pane) === next) queues.delete(request.pane);
        })
        .catch(() => undefined);
      return next;
    },
  };
}
