/**
 * Reading an agent's composer (the line being typed) off a captured screen,
 * to tell whether text typed into it is still waiting there: after the
 * submit key (was the submission taken?) and after a restart (did a killed
 * bridge leave its text unsubmitted?). Only the last few characters of the
 * text are looked for, without spaces, since a program may wrap, indent or
 * redraw what was typed. Pure: `pane-composer.ts` reads the pane.
 */
import { sanitizeText } from '../protocol/sanitize.js';

/** The tail of the typed text looked for in the composer. */
const PROBE_CHARS = 16;

/** The text as it is typed: sanitized, trailing newlines dropped. */
export function typedText(text: string): string {
  return sanitizeText(text).replace(/\n+$/, '');
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
  const rows = screenRows(screen);
  if (cursorY === undefined) {
    for (let i = rows.length - 1; i >= 0; i -= 1) {
      const row = squeeze(rows[i]);
      if (row !== '') return row;
    }
    return '';
  }
  const upToCursor = rowUpToCursor(rows[cursorY], cursorX);
  if ([...upToCursor].length >= PROBE_CHARS) return upToCursor;
  const above = rows[cursorY - 1] ?? '';
  return [...above].length >= width ? squeeze(above) + upToCursor : upToCursor;
}

/**
 * The cursor's own row up to the cursor, whitespace removed (the whole row
 * without a column; empty without a row). A program that took a line moved
 * the cursor to a fresh row; one that only redrew its composer elsewhere
 * (a footer growing under it) carries this row along unchanged.
 */
export function cursorRowText(
  screen: string,
  cursorX: number | undefined,
  cursorY: number | undefined,
): string {
  if (cursorY === undefined) return '';
  return rowUpToCursor(screenRows(screen)[cursorY], cursorX);
}

function screenRows(screen: string): string[] {
  return screen.replace(/\n$/, '').split('\n');
}

function squeeze(row: string | undefined): string {
  return (row ?? '').replace(/\s+/g, '');
}

/** A row up to the cursor's column (all of it without one), squeezed. */
function rowUpToCursor(row: string | undefined, cursorX: number | undefined) {
  const text = row ?? '';
  return squeeze(
    cursorX === undefined ? text : [...text].slice(0, cursorX).join(''),
  );
}
