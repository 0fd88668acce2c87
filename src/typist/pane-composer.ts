/**
 * Reading a live pane's composer through tmux: the view a delivery compares
 * before and after its submit key (screen, composer, cursor), and, after a
 * restart, whether a pane's composer still holds text a killed bridge typed
 * (`composerHolds`). What counts as the composer is `composer.ts`.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { TmuxClient } from '../tmux/client.js';
import { PaneNotFoundError } from '../tmux/client.js';
import {
  composerProbe,
  composerText,
  cursorRowText,
  typedText,
} from './composer.js';

/** A pane as a delivery sees it around the submit key. */
export interface PaneView {
  screen: string;
  /** What the composer holds before the cursor (composerText). */
  composer: string;
  /** Where the cursor is (`x,y`). */
  cursor: string;
  /** The cursor's own row up to the cursor (cursorRowText). */
  cursorRow: string;
  dead: boolean;
  inMode: boolean;
}

/** A dead pane's view: nothing to read. */
const DEAD_VIEW: PaneView = {
  screen: '',
  composer: '',
  cursor: '',
  cursorRow: '',
  dead: true,
  inMode: false,
};

/** How often a screen read across a move of the cursor is read again. */
const TORN_READS = 3;

/**
 * Reads the pane's screen and cursor as one moment (a pane gone meanwhile:
 * empty screen). They are two tmux commands, and a program can redraw
 * between them (Codex moving its composer as it finishes starting): a
 * cursor read before and after the screen that differ mean the screen may
 * belong to neither, so it is read again.
 */
export async function readPaneView(
  tmux: TmuxClient,
  pane: string,
): Promise<PaneView> {
  let info = await tmux.paneInfo(pane);
  for (let read = 1; ; read += 1) {
    if (info.dead) return DEAD_VIEW;
    const screen = await tmux.capturePane(pane).catch((error: unknown) => {
      if (error instanceof PaneNotFoundError) return '';
      throw error;
    });
    const after = await tmux.paneInfo(pane);
    if (after.dead) return DEAD_VIEW;
    const moved =
      after.cursorX !== info.cursorX || after.cursorY !== info.cursorY;
    info = after;
    if (!moved || read >= TORN_READS)
      return {
        screen,
        composer: composerText(screen, info.cursorX, info.cursorY, info.width),
        cursor: `${String(info.cursorX)},${String(info.cursorY)}`,
        cursorRow: cursorRowText(screen, info.cursorX, info.cursorY),
        dead: false,
        inMode: info.inMode,
      };
  }
}

/** How long a pane must not change before its composer is read after a restart. */
const COMPOSER_QUIET_MS = 500;
/** The longest wait for that quiet (a pane that never stops changing). */
const COMPOSER_QUIET_MAX_MS = 5000;
/** How often the pane is read while waiting for that quiet. */
const COMPOSER_POLL_MS = 50;

/**
 * Whether the pane's composer ends with `text` as it would be typed (its
 * last few non-space characters, just before the cursor: composerProbe):
 * the text was typed and not submitted. Read once the pane has stopped
 * changing for `quietMs` (at most `maxMs`): keys a killed bridge sent are
 * still on their way to the program for a moment (a busy machine: longer),
 * so a composer read at once may not show text that is about to appear
 * there, or still show text whose submit key is about to be taken. False
 * for a dead or missing pane, and for text with nothing to look for.
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
      await delay(options.pollMs ?? COMPOSER_POLL_MS);
    }
  } catch (error) {
    if (error instanceof PaneNotFoundError) return false;
    throw error;
  }
}
