/**
 * The last step of a delivery (SPEC §6 step 6): after a press of the submit
 * key, watching the pane for a sign that the agent took the text (its hook,
 * the screen turning `working`, the composer letting go of the text, or any
 * change when the text was not to be seen), and preferring the hook's word
 * when it follows the screen's soon. Deciding to press the key again is
 * the typist's (`typist.ts`); the text itself is never typed
 * twice.
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
  const heldText = probe !== '' && before.composer.endsWith(probe);
  const until = Date.now() + timing.confirmTimeoutMs;
  for (;;) {
    if (request.confirm?.confirmed?.()) return 'hook';
    const now = await readPaneView(tmux, request.pane);
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
      await delay(timing.confirmPollMs, undefined, { signal: request.signal });
    } catch {
      return undefined;
    }
  }
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
