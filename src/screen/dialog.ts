/**
 * Pure: find a preset's permission dialog on a captured screen (its
 * `dialog` description, config/presets/types.ts) and fingerprint what it
 * asks; and the keys that apply a decision to it. A screen approval is
 * raised from a reading, and applied only when a fresh reading of the live
 * screen still shows a dialog with the same fingerprint (docs/backends.md,
 * "Approvals from screens").
 */
import type { PresetDialog } from '../config/presets/types.js';
import { approvalFingerprint } from '../protocol/approval.js';
import { cleanScreenLines } from './classify.js';

/** A permission dialog as a screen shows it. */
export interface DialogReading {
  /** The dialog's `name` in its preset. */
  name: string;
  /** Its lines from top to bottom as shown, right-trimmed, common indent removed. */
  text: string;
  /** Hash of the normalized text (approvalFingerprint, tool `dialog:<name>`). */
  fingerprint: string;
}

function compileLine(source: string): RegExp {
  return new RegExp(source);
}

const BOX_EDGE = /^[│┃║|]+|[│┃║|]+$/g;
/** A run of rule characters: its length follows the pane's width. */
const RULE_RUN = /([─━═╌┄])\1{2,}/g;

/**
 * The dialog's text as its fingerprint sees it: box edges and surrounding
 * blanks gone from every line, runs of blanks made one, rules cut to three
 * characters, blank lines dropped.
 * Padding and right-aligned hints that move with the pane's width do not
 * change it; a word of what is asked does.
 */
export function normalizeDialogText(lines: readonly string[]): string {
  return lines
    .map((line) =>
      line
        .trim()
        .replace(BOX_EDGE, '')
        .trim()
        .replace(BOX_EDGE, '')
        .replace(RULE_RUN, '$1$1$1')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((line) => line !== '')
    .join('\n');
}

function removeCommonIndent(lines: readonly string[]): string[] {
  const indents = lines
    .filter((line) => line.trim() !== '')
    .map((line) => /^[ \t]*/.exec(line)?.[0].length ?? 0);
  const common = indents.length > 0 ? Math.min(...indents) : 0;
  return lines.map((line) => line.slice(common));
}

/**
 * The preset's dialog on this screen (capture-pane text), or undefined when
 * it is not there exactly as described: the last line matching `selected`,
 * a `bottom` line below it with only blank lines after, and a `top` line at
 * most `maxLines` above it.
 */
export function readDialog(
  screen: string,
  dialog: PresetDialog,
): DialogReading | undefined {
  const lines = cleanScreenLines(screen);
  const selected = compileLine(dialog.selected);
  const top = compileLine(dialog.top);
  const bottom = compileLine(dialog.bottom);
  let at = -1;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    if (selected.test(lines[i] ?? '')) {
      at = i;
      break;
    }
  }
  if (at < 0) return undefined;
  let end = -1;
  for (let i = at + 1; i < lines.length; i += 1) {
    if (bottom.test(lines[i] ?? '')) {
      end = i;
      break;
    }
  }
  // cleanScreenLines drops trailing blank lines: the bottom line is the last.
  if (end < 0 || end !== lines.length - 1) return undefined;
  let start = -1;
  for (let i = at - 1; i >= Math.max(0, at - dialog.maxLines); i -= 1) {
    if (top.test(lines[i] ?? '')) {
      start = i;
      break;
    }
  }
  if (start < 0) return undefined;
  const shown = lines.slice(start, end + 1);
  const normalized = normalizeDialogText(shown);
  return {
    name: dialog.name,
    text: removeCommonIndent(shown).join('\n'),
    fingerprint: approvalFingerprint(`dialog:${dialog.name}`, normalized),
  };
}

/** The keys that apply a decision to the dialog (never its answer's text). */
export function dialogKeys(
  dialog: PresetDialog,
  decision: 'allow' | 'deny',
): readonly string[] {
  return decision === 'allow' ? dialog.allowKeys : dialog.denyKeys;
}
