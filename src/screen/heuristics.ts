/**
 * Heuristic triggers (SPEC §2): a worker at its prompt whose last message
 * asks for a decision, without a request block, still gets heard. Pure:
 * screen lines and the agent's state in, a match (or none) out.
 *
 * How a screen is read:
 * 1. The prompt area at the bottom is set aside: the last composer or prompt
 *    line among the bottom rows (`❯`, `>`, `›`, `$`…, alone or in a box),
 *    everything under it (rules, hints) and the rules and box edges just
 *    above it. What is left is the conversation.
 * 2. The agent's final message is the conversation from its last message
 *    bullet (`●`, `⏺`, `✦`) on, or without bullets its last paragraph.
 * 3. Code does not count: lines inside ``` fences, comment lines (`//`,
 *    `#`, `/*`, `*`, `--`) and lines ending in `;`, `{` or `}`.
 * 4. Triggers, first match wins: the last line of the conversation is prose
 *    ending in `?` (`question`); a decision phrase such as "should I" in the
 *    final message (`ask`); a completion word such as "done" in the final
 *    message (`done`). Phrases are matched as whole words, in any case.
 *
 * Nothing fires unless the state is `idle`. The caller keeps the `key` of
 * the last match and fires again only for a different key, so one screen
 * makes at most one request however often it is read.
 */
import { createHash } from 'node:crypto';
import { removeCommonIndent, stripChrome } from './chrome.js';

export type HeuristicTrigger = 'question' | 'ask' | 'done';

export interface HeuristicOptions {
  /** Lines of the conversation the request carries (`heuristicLines`). */
  lines: number;
  /** Fire on a last line ending in `?` (default true). */
  question?: boolean;
  /** Decision phrases (default DEFAULT_ASK_PHRASES). */
  ask?: readonly string[];
  /** Completion phrases (default DEFAULT_DONE_PHRASES). */
  done?: readonly string[];
}

export interface HeuristicMatch {
  trigger: HeuristicTrigger;
  /** The phrase that matched (`ask`, `done`). */
  phrase?: string;
  /** The line the trigger was found in, cleaned. */
  line: string;
  /** The request body: the last `lines` lines of the conversation, cleaned. */
  body: string;
  /** Identity of the conversation it was read from. */
  key: string;
}

export const DEFAULT_ASK_PHRASES: readonly string[] = [
  'what would you like',
  'should i',
  'shall i',
  'do you want',
  'ready to proceed',
  'ready for next steps',
];

export const DEFAULT_DONE_PHRASES: readonly string[] = [
  'done',
  'complete',
  'finished',
  'all set',
  'ready for review',
];

/** How many bottom rows may hold the prompt area. */
const PROMPT_AREA_ROWS = 12;
/** The longest final message looked at. */
const FINAL_MESSAGE_MAX_LINES = 40;

// A composer or prompt line: a prompt glyph first (maybe inside a box
// border), or a shell prompt ending the line.
const PROMPT_LINE =
  /^\s*(?:[│┃]\s*)?(?:[❯›>»]|>>>|\$|%)(?:\s|$)|^\S*[\w~)\]]\s?[$#%❯»]\s*$/;
// Rules, box edges and borders drawn around a composer.
const FRAME_LINE = /^\s*[╭╰┌└├┏┗╔╚]?[─━═╌╍┄┅┈┉]{3,}[╮╯┐┘┤┓┛╗╝]?\s*$/;
const MESSAGE_BULLET = /^\s{0,2}[●⏺✦](?:\s|$)/;
const FENCE = /^\s*(?:[│┃]\s*)?```/;
const CODE_LINE =
  /^\s*(?:[│┃]\s*)?(?:\/\/|\/\*|\*\/|\*\s|#\s|#$|--\s|<!--)|[;{}]\s*$/;
const DECORATION = /^\s*(?:[│┃▌]\s?)?(?:[●⏺⎿•✦]\s*)?/;
const RIGHT_BORDER = /\s[│┃]\s*$/;
const QUESTION_END = /\?["'`*_)\]]*$/;

function isBlank(line: string): boolean {
  return line.trim() === '';
}

/** The conversation: the screen without the prompt area at its bottom. */
export function conversationLines(screen: readonly string[]): string[] {
  const lines = screen.map((line) => line.trimEnd());
  let end = lines.length;
  while (end > 0 && isBlank(lines[end - 1] ?? '')) end -= 1;
  let cut = end;
  for (let i = end - 1; i >= Math.max(0, end - PROMPT_AREA_ROWS); i -= 1) {
    if (PROMPT_LINE.test(lines[i] ?? '')) {
      cut = i;
      break;
    }
  }
  while (
    cut > 0 &&
    (isBlank(lines[cut - 1] ?? '') || FRAME_LINE.test(lines[cut - 1] ?? ''))
  )
    cut -= 1;
  return lines.slice(0, cut);
}

/** Lines of the final message, with a flag for the ones that are code. */
function finalMessage(
  conversation: readonly string[],
): { text: string; code: boolean }[] {
  let start = -1;
  for (let i = conversation.length - 1; i >= 0; i -= 1) {
    if (MESSAGE_BULLET.test(conversation[i] ?? '')) {
      start = i;
      break;
    }
  }
  if (start < 0) {
    start = conversation.length;
    while (start > 0 && !isBlank(conversation[start - 1] ?? '')) start -= 1;
  }
  start = Math.max(start, conversation.length - FINAL_MESSAGE_MAX_LINES);
  // Fences are counted from the top of the conversation: a message may
  // start inside a code block.
  let inFence = false;
  const marks = conversation.map((line) => {
    if (FENCE.test(line)) {
      inFence = !inFence;
      return true;
    }
    return inFence || CODE_LINE.test(line);
  });
  return conversation
    .slice(start)
    .map((line, index) => ({ text: line, code: marks[start + index] ?? false }))
    .filter((line) => !isBlank(line.text) && !FRAME_LINE.test(line.text));
}

function phraseRegex(phrase: string): RegExp {
  const words = phrase
    .trim()
    .split(/\s+/)
    .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`(?<![\\w'])${words.join('\\s+')}(?![\\w'])`, 'i');
}

function plain(line: string): string {
  return line.replace(DECORATION, '').replace(RIGHT_BORDER, '').trim();
}

/** Lines as a person reads them: borders, bullets, rules and indent removed. */
function cleanLines(lines: readonly string[]): string {
  const out = removeCommonIndent(stripChrome(lines));
  let start = 0;
  let end = out.length;
  while (start < end && isBlank(out[start] ?? '')) start += 1;
  while (end > start && isBlank(out[end - 1] ?? '')) end -= 1;
  return out.slice(start, end).join('\n');
}

function keyOf(lines: readonly string[]): string {
  const text = lines.join('\n').replace(/\s+/g, ' ').trim();
  return createHash('sha1').update(text, 'utf8').digest('hex').slice(0, 16);
}

/**
 * The heuristic a screen triggers, or undefined. `screen` is the screen's
 * lines as shown (a capture, rows right-trimmed); `state` the agent's state.
 */
export function findHeuristic(
  screen: readonly string[],
  state: string,
  options: HeuristicOptions,
): HeuristicMatch | undefined {
  if (state !== 'idle') return undefined;
  const conversation = conversationLines(screen);
  const message = finalMessage(conversation);
  const last = message[message.length - 1];
  if (last === undefined) return undefined;
  const tail = conversation.slice(-Math.max(1, options.lines));
  const base = { body: cleanLines(tail), key: keyOf(tail) };
  if (base.body === '') return undefined;
  if (
    (options.question ?? true) &&
    !last.code &&
    QUESTION_END.test(plain(last.text))
  )
    return { ...base, trigger: 'question', line: plain(last.text) };
  const prose = message.filter((line) => !line.code);
  for (const [trigger, phrases] of [
    ['ask', options.ask ?? DEFAULT_ASK_PHRASES],
    ['done', options.done ?? DEFAULT_DONE_PHRASES],
  ] as const) {
    for (const phrase of phrases) {
      const regex = phraseRegex(phrase);
      const line = prose.find((candidate) => regex.test(candidate.text));
      if (line) return { ...base, trigger, phrase, line: plain(line.text) };
    }
  }
  return undefined;
}
