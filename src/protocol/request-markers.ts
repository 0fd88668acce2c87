/**
 * The markers that open and close a request block (SPEC §2), and how the
 * request parser finds them in a rendered line. Pure.
 *
 *   <<CONTROLLER_REQUEST id=q-17 type=question>>
 *   body lines
 *   <<CONTROLLER_REQUEST_END>>
 */

export const REQUEST_START = '<<CONTROLLER_REQUEST';
export const REQUEST_END = '<<CONTROLLER_REQUEST_END>>';

// The start marker: not `<<CONTROLLER_REQUEST_END>>` (the next character must
// be whitespace or `>`), attribute text without `<` or `>`, then `>>`.
const START_MARKER = /<<CONTROLLER_REQUEST(?=[\s>])([^<>]*)>>/g;

/**
 * A fragment of a marker line that holds no text, only decoration (the
 * borders and bullets agents draw around their messages).
 */
export const DECORATION_ONLY = /^[\s│┃|●⏺⎿•]*$/;

/** A start marker found in a line. */
export interface StartMarker {
  index: number;
  attributeText: string;
  /** Index just past `>>`. */
  after: number;
}

/** The first start marker in `line` at or after index `from`. */
export function findStart(line: string, from: number): StartMarker | undefined {
  START_MARKER.lastIndex = from;
  const match = START_MARKER.exec(line);
  if (match === null) return undefined;
  return {
    index: match.index,
    attributeText: match[1] ?? '',
    after: match.index + match[0].length,
  };
}
