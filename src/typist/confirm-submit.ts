/**
 * The last step of a delivery (SPEC §6 step 6): after a press of the submit
 * key, watching the pane for a sign that the agent took the text (its hook,
 * the screen turning `working`, the composer letting go of the text, or any
 * change when the text was not to be seen, even after the key), and
 * preferring the hook's word when it follows the screen's soon. Deciding to
 * press the key again is the typist's (`typist.ts`); the text itself is
 * never typed twice.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { TmuxClient } from '../tmux/client.js';
import type { ConfirmSignal, DeliveryRequest } from './types.js';
import { readPaneView, type PaneView } from './pane-composer.js';

/** How long one press is watched, and how often the pane is read meanwhile. */
export interface ConfirmTiming {
  confirmTimeoutMs: number;
  confirmPollMs: number;
}

/**
 * Watches one press of the submit key: the sign it was taken, `gone` when
 * the pane died, undefined when nothing showed it within the timeout.
 * `before` is the pane just before the press; `probe` the text's tail as
 * the composer would show it (composerProbe).
 */
export async function watchSubmit(
  tmux: TmuxClient,
  request: DeliveryRequest,
  before: PaneView,
  probe: string,
  timing: ConfirmTiming,
): Promise<ConfirmSignal | 'gone' | undefined> {
  // The view that holds the text in its composer, once one does.
  let held = holds(before, probe) ? before : undefined;
  let changed = false;
  const until = Date.now() + timing.confirmTimeoutMs;
  for (;;) {
    if (request.confirm?.confirmed?.()) return 'hook';
    const now = await readPaneView(tmux, request.pane);
    if (now.dead) return 'gone';
    const state = request.classify?.(now.screen);
    if (state === 'working' || state === 'approval') return 'working';
    if (held) {
      if (letGo(held, now, probe)) return 'composer';
    } else if (holds(now, probe) && now.cursorRow !== '') {
      // The text shows only now, after the key, waiting at the cursor: the
      // program drew it late (Codex still starting) and the key was not
      // taken. Watched from here; the key may be pressed again.
      held = now;
      changed = false;
    } else if (now.screen !== before.screen || now.cursor !== before.cursor) {
      // The text was not to be seen (a program that does not echo, a
      // placeholder): any reaction counts, read twice so that a frame
      // drawn in parts (the text first, the cursor after it) is seen
      // whole. Pressing the key again on a program that took the text
      // would submit a second time.
      if (changed) return 'screen';
      changed = true;
    }
    // A change seen once and the time up: taken, as the key may have been.
    if (Date.now() >= until) return changed ? 'screen' : undefined;
    try {
      await delay(timing.confirmPollMs, undefined, { signal: request.signal });
    } catch {
      return undefined;
    }
  }
}

/** Whether the composer in `view` ends with the typed text's probe. */
function holds(view: PaneView, probe: string): boolean {
  return probe !== '' && view.composer.endsWith(probe);
}

/**
 * Whether the composer let go of the text held in `held`: the text is no
 * longer before the cursor, or the cursor moved to a row that reads
 * differently. A line program that took the text moved the cursor to a
 * fresh row, even when its echo of the text sits just above it; a
 * composer only redrawn elsewhere (Codex's footer growing under it) took
 * its row along and still holds the text.
 */
function letGo(held: PaneView, now: PaneView, probe: string): boolean {
  if (!holds(now, probe)) return true;
  return now.cursor !== held.cursor && now.cursorRow !== held.cursorRow;
}

/** A screen sign, or the hook's word if it comes within preferConfirmedMs. */
export async function preferHook(
  request: DeliveryRequest,
  seen: ConfirmSignal,
  confirmPollMs: number,
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
