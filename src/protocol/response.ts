/**
 * Reading an answerer's response (SPEC §2 "Response"): the optional
 * `<<CONTROLLER_RESPONSE id=…>>` block, and its split into instructions (sent
 * to the worker) and notes (never sent). Pure.
 */
import { parseAttributes } from './attributes.js';

export const RESPONSE_START = '<<CONTROLLER_RESPONSE';
export const RESPONSE_END = '<<CONTROLLER_RESPONSE_END>>';

// Like the request start marker: not the end marker, attributes on one line.
const RESPONSE_START_MARKER = /<<CONTROLLER_RESPONSE(?=[\s>])([^<>\n]*)>>/g;

export interface ParsedResponse {
  /** The `id` attribute of the response block, when there was one. */
  id?: string;
  /** Text for the worker; '' when there is nothing to send. */
  instructions: string;
  /** Text for the person only. */
  notes: string;
  /** True when a complete response block was found. */
  hasMarkers: boolean;
}

export interface ResponseBlock {
  id?: string;
  /** Valid attributes only (invalid ones are dropped silently). */
  attributes: Record<string, string>;
  /** Text between the markers, with the marker lines' own breaks removed. */
  content: string;
}

function normalizeNewlines(text: string): string {
  return text.replace(/\r\n/g, '\n');
}

interface Marker {
  index: number;
  attributeText: string;
  after: number;
}

function findStartMarker(text: string, from: number): Marker | undefined {
  RESPONSE_START_MARKER.lastIndex = from;
  const match = RESPONSE_START_MARKER.exec(text);
  if (match === null) return undefined;
  return {
    index: match.index,
    attributeText: match[1] ?? '',
    after: match.index + match[0].length,
  };
}

/**
 * Every complete response block, in order. A start marker followed by another
 * start before any end marker is incomplete and skipped. CRLF is read as LF.
 */
export function findResponseBlocks(text: string): ResponseBlock[] {
  const source = normalizeNewlines(text);
  const blocks: ResponseBlock[] = [];
  let pos = 0;
  for (;;) {
    const start = findStartMarker(source, pos);
    if (start === undefined) break;
    const end = source.indexOf(RESPONSE_END, start.after);
    if (end < 0) break;
    const next = findStartMarker(source, start.after);
    if (next !== undefined && next.index < end) {
      pos = next.index;
      continue;
    }
    const { attributes } = parseAttributes(start.attributeText);
    const content = source
      .slice(start.after, end)
      .replace(/^[ \t]*\n/, '')
      .replace(/\n[ \t]*$/, '');
    const block: ResponseBlock = { attributes, content };
    if (attributes.id !== undefined) block.id = attributes.id;
    blocks.push(block);
    pos = end + RESPONSE_END.length;
  }
  return blocks;
}

type HeaderKind = 'instructions' | 'notes';

// A header on its own line: optional Markdown `#`..`######`, optional `**` or
// `__` around the name and/or the colon, case-insensitive.
const HEADER_LINE =
  /^\s*(#{1,6}[ \t]*)?(\*\*|__)?[ \t]*(worker[ \t_-]+instructions?|notes)[ \t]*(\*\*|__)?[ \t]*(:)?[ \t]*(\*\*|__)?[ \t]*$/i;

/**
 * Which header a line is, if any. The colon may only be left out when Markdown
 * marks the line as a heading (`## Notes`, `**Notes**`): a bare `Notes` line is
 * too likely to be ordinary text.
 */
function classifyHeader(line: string): HeaderKind | undefined {
  const match = HEADER_LINE.exec(line);
  if (match === null) return undefined;
  const [, hashes, open, name = '', close, colon, closeAfterColon] = match;
  const marked =
    colon !== undefined ||
    hashes !== undefined ||
    (open !== undefined && (close ?? closeAfterColon) !== undefined);
  if (!marked) return undefined;
  return name.toLowerCase() === 'notes' ? 'notes' : 'instructions';
}

/** Right-trims every line and drops leading and trailing blank lines. */
/**
 * Drop blank lines at both ends. Lines keep their own spaces: the answer must
 * reach the worker exactly as written (only control characters are removed,
 * at delivery).
 */
function tidy(lines: readonly string[]): string {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]?.trim() === '') start += 1;
  while (end > start && lines[end - 1]?.trim() === '') end -= 1;
  return lines.slice(start, end).join('\n');
}

function joinParts(...parts: string[]): string {
  return parts.filter((part) => part !== '').join('\n\n');
}

/**
 * Splits a response into instructions and notes.
 *
 * The content is the first complete response block when there is one (its
 * `id` is returned), else the whole text with any stray markers removed.
 *
 * - With a `WORKER INSTRUCTIONS:` header, each header starts a section of its
 *   kind; instructions are the instruction sections, notes the notes sections.
 *   Text before the first header is chatter for the person, so it goes to the
 *   notes (before the notes sections), never to the worker.
 * - With no instructions header, the text is all instructions (SPEC), except
 *   that once a `NOTES:` header appears, everything from it on is notes. Notes
 *   must never reach a worker, and a lone `NOTES:` header is a clear sign of
 *   where they begin.
 *
 * Header lines themselves appear in neither part. Each part has CRLF read as
 * LF, trailing whitespace removed from each line, and leading and trailing
 * blank lines removed. With `noSplit` the whole content is the instructions.
 */
export function splitResponse(
  text: string,
  options: { noSplit?: boolean } = {},
): ParsedResponse {
  const source = normalizeNewlines(text);
  const block = findResponseBlocks(source)[0];
  const content =
    block?.content ??
    source.replace(RESPONSE_START_MARKER, '').split(RESPONSE_END).join('');
  const result = (instructions: string, notes: string): ParsedResponse => {
    const parsed: ParsedResponse = {
      instructions,
      notes,
      hasMarkers: block !== undefined,
    };
    if (block?.id !== undefined) parsed.id = block.id;
    return parsed;
  };

  const lines = content.split('\n');
  if (options.noSplit === true) return result(tidy(lines), '');

  const kinds = lines.map(classifyHeader);
  if (!kinds.includes('instructions')) {
    const notesAt = kinds.indexOf('notes');
    if (notesAt < 0) return result(tidy(lines), '');
    const notes = lines
      .slice(notesAt)
      .filter((_, i) => kinds[notesAt + i] === undefined);
    return result(tidy(lines.slice(0, notesAt)), tidy(notes));
  }

  const preamble: string[] = [];
  const instructions: string[] = [];
  const notes: string[] = [];
  let section: string[] = preamble;
  lines.forEach((line, i) => {
    const kind = kinds[i];
    if (kind === 'instructions') section = instructions;
    else if (kind === 'notes') section = notes;
    else section.push(line);
  });
  return result(tidy(instructions), joinParts(tidy(preamble), tidy(notes)));
}
