/**
 * Removing the decoration that agent UIs draw around printed text (SPEC §2:
 * box borders, bullets, a common indent). Pure.
 *
 * Every rule here is conservative: decoration is removed only when it is
 * clearly decoration (a border on every line, a bullet glyph at the very
 * start), so content such as a `|` inside code or a bulleted list survives.
 */

/** Box-drawing characters accepted as a left/right border. */
const BOX_BORDERS = ['│', '┃'] as const;
/** ASCII border: only when every non-blank line has it, followed by a space. */
const PIPE_BORDER = '|';

/** Glyphs agents print before a message or a tool result. */
const UI_BULLETS = new Set(['●', '⏺', '⎿']);
/** A plain bullet, which is also an ordinary list marker in prose. */
const LIST_BULLET = '•';

/** A top or bottom edge of a box, e.g. `╭────╮` or `└──┘`. */
const BOX_EDGE = /^\s*[╭┌╔┏╰└╚┗][─━═]*[╮┐╗┓╯┘╝┛]\s*$/;

function isBlank(line: string): boolean {
  return line.trim() === '';
}

function leadingWhitespace(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? '';
}

/** Index of the first non-blank line, or -1. */
function firstNonBlank(lines: readonly string[]): number {
  return lines.findIndex((line) => !isBlank(line));
}

function trimBlankEdges(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && isBlank(lines[start] ?? '')) start += 1;
  while (end > start && isBlank(lines[end - 1] ?? '')) end -= 1;
  return lines.slice(start, end);
}

/** Drops box top/bottom edges at the start and end of the text. */
function dropBoxEdges(lines: string[]): string[] {
  let out = trimBlankEdges(lines);
  while (out.length > 0 && BOX_EDGE.test(out[0] ?? '')) {
    out = trimBlankEdges(out.slice(1));
  }
  while (out.length > 0 && BOX_EDGE.test(out[out.length - 1] ?? '')) {
    out = trimBlankEdges(out.slice(0, -1));
  }
  return out;
}

function hasLeftBorder(line: string, border: string): boolean {
  const rest = line.trimStart();
  if (!rest.startsWith(border)) return false;
  if (border !== PIPE_BORDER) return true;
  const after = rest.charAt(border.length);
  return after === '' || after === ' ' || after === '\t';
}

function stripRightBorder(line: string, border: string): string {
  const trimmed = line.trimEnd();
  if (!trimmed.endsWith(border)) return trimmed;
  const before = trimmed.slice(0, -border.length);
  if (border === PIPE_BORDER && before !== '' && !/\s$/.test(before)) {
    return trimmed; // `a|` is content, not a border
  }
  return before.trimEnd();
}

interface Stripped {
  lines: string[];
  /**
   * Index of a leading line whose left edge was not aligned with the rest
   * (it had no left border, or lost a bullet). It is left-trimmed instead of
   * taking part in the common indent.
   */
  detached: number;
}

/**
 * Removes a left border (and a right border where present) when every
 * non-blank line has the same left border. For box characters the first line
 * may lack the left border if it ends with the right one: that is the text
 * written after a start marker inside a box.
 */
function stripBorders(lines: string[]): Stripped {
  const nonBlank = lines
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => !isBlank(line));
  const first = nonBlank[0];
  if (first === undefined) return { lines, detached: -1 };

  for (const border of [...BOX_BORDERS, PIPE_BORDER]) {
    const rest = nonBlank.slice(1);
    if (!rest.every(({ line }) => hasLeftBorder(line, border))) continue;
    let detached = -1;
    if (!hasLeftBorder(first.line, border)) {
      const boxFirstLine =
        border !== PIPE_BORDER &&
        rest.length > 0 &&
        first.line.trimEnd().endsWith(border) &&
        stripRightBorder(first.line, border) !== first.line.trimEnd();
      if (!boxFirstLine) continue;
      detached = first.index;
    }
    const out = lines.map((line, index) => {
      if (isBlank(line)) return '';
      if (index === detached) return stripRightBorder(line, border);
      const rest = line.trimStart().slice(border.length);
      return stripRightBorder(rest, border);
    });
    return { lines: out, detached };
  }
  return { lines, detached: -1 };
}

/**
 * Removes UI bullets from the start of the first non-blank line(s). `●`, `⏺`
 * and `⎿` are always UI glyphs; `•` is removed only when the next non-blank
 * line does not also start with `•` (then it is a list, which is content).
 */
function stripLeadingBullets(lines: string[], detached: number): Stripped {
  const out = [...lines];
  let index = firstNonBlank(out);
  let lastStripped = detached;
  while (index >= 0) {
    const line = out[index] ?? '';
    const stripped = stripBulletPrefix(line, out, index);
    if (stripped === line) break;
    out[index] = stripped;
    lastStripped = index;
    if (!isBlank(stripped)) break;
    // The line was only a bullet: look at the next one.
    const next = out.slice(index + 1).findIndex((l) => !isBlank(l));
    index = next < 0 ? -1 : index + 1 + next;
  }
  return { lines: out, detached: lastStripped };
}

function stripBulletPrefix(
  line: string,
  lines: readonly string[],
  index: number,
): string {
  let rest = line.trimStart();
  let changed = false;
  for (;;) {
    const glyph = rest.charAt(0);
    const after = rest.charAt(1);
    const separated = after === '' || after === ' ' || after === '\t';
    if (!separated) break;
    if (UI_BULLETS.has(glyph)) {
      rest = rest.slice(1).trimStart();
      changed = true;
      continue;
    }
    if (glyph === LIST_BULLET && !nextLineIsListItem(lines, index)) {
      rest = rest.slice(1).trimStart();
      changed = true;
      continue;
    }
    break;
  }
  return changed ? rest : line;
}

function nextLineIsListItem(lines: readonly string[], index: number): boolean {
  const next = lines.slice(index + 1).find((line) => !isBlank(line));
  return next !== undefined && next.trimStart().startsWith(LIST_BULLET);
}

/** Common leading-whitespace prefix of the non-blank lines. */
function commonIndent(lines: readonly string[], skip: number): string {
  let common: string | undefined;
  lines.forEach((line, index) => {
    if (index === skip || isBlank(line)) return;
    const indent = leadingWhitespace(line);
    if (common === undefined) {
      common = indent;
      return;
    }
    let k = 0;
    while (k < common.length && k < indent.length && common[k] === indent[k]) {
      k += 1;
    }
    common = common.slice(0, k);
  });
  return common ?? '';
}

/**
 * Cleans the body lines of a request block (SPEC §2): right-trims every line,
 * drops box edges, box borders (`│`, `┃`, or `|` when it is a consistent left
 * border of every non-blank line) and leading UI bullets (`●`, `⏺`, `⎿`, `•`),
 * removes the common indent, and removes leading and trailing blank lines.
 */
export function cleanBody(lines: string[]): string {
  const trimmed = dropBoxEdges(lines.map((line) => line.trimEnd()));
  const bordered = stripBorders(trimmed);
  const bulleted = stripLeadingBullets(bordered.lines, bordered.detached);
  const { lines: body, detached } = bulleted;
  const indent = commonIndent(body, detached);
  const dedented = body.map((line, index) => {
    if (index === detached) return line.trim();
    if (isBlank(line)) return '';
    return line.slice(indent.length).trimEnd();
  });
  return trimBlankEdges(dedented).join('\n');
}
