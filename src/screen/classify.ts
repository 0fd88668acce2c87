/**
 * Pure: screen text + preset -> agent state (SPEC §6).
 *
 * The screen is what `tmux capture-pane -p` prints (or Screen.visibleText()).
 * It is cleaned first: escape sequences and carriage returns removed,
 * non-breaking spaces turned into spaces, lines right-trimmed, trailing blank
 * lines dropped. Rule patterns are compiled with the `m` flag, plus `i` when
 * the rule sets `ignoreCase`; a rule with `lastLines` sees only that many
 * lines from the bottom of the cleaned text.
 *
 * Precedence, first match wins: final error > approval > working > error >
 * idle > unknown.
 * - final error rules first (`final: true`): the program has ended (its
 *   shell prompt is back under what it printed) or has given up (a retry
 *   that has lasted past its limit); a spinner line or a dialog it left on
 *   screen no longer blocks anything, and the person must hear of it.
 * - approval first: a permission or choice dialog blocks the turn even while
 *   a spinner, a "Running…" line or a composer is still drawn around it, and
 *   typing then would answer the dialog.
 * - working before error: failing tool output, retries and error text scroll
 *   past while an agent keeps working; an error only counts once it settles.
 * - error before idle: a crashed or exited program usually leaves a prompt
 *   (or the agent's composer) on screen, and the failure must not read as
 *   "ready for the next instruction".
 * - idle last: a composer or prompt is drawn in almost every state of a TUI
 *   agent, so it is the weakest sign.
 * Screens never yield `dead`: that comes from tmux (pane gone or exited).
 */
import {
  BUSY_MARKER_LINES,
  SCREEN_STATES,
  type Preset,
  type ScreenRule,
  type ScreenStateName,
} from '../config/presets/types.js';
import type { AgentStateName } from '../config/states.js';

export interface ClassifyResult {
  state: AgentStateName;
  /** `<state>:<rule name or index>` of the rule that matched. */
  rule?: string;
}

// CSI, OSC (BEL or ST terminated), other two-byte ESC sequences.
const ESCAPE_SEQUENCE =
  // eslint-disable-next-line no-control-regex
  /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;

/** The lines of a screen as classification sees them. */
export function cleanScreenLines(screen: string): string[] {
  const lines = screen
    .replace(ESCAPE_SEQUENCE, '')
    .replace(/\r/g, '')
    .replace(/\u00a0/g, ' ')
    .split('\n')
    .map((line) => line.trimEnd());
  let end = lines.length;
  while (end > 0 && lines[end - 1] === '') end -= 1;
  return lines.slice(0, end);
}

/** How many lines of a dead agent's screen are kept to tell why it ended. */
export const LAST_LINES = 10;

/** The last non-blank lines of a screen, cleaned (why an agent ended). */
export function lastScreenLines(screen: string, count = LAST_LINES): string[] {
  return cleanScreenLines(screen)
    .filter((line) => line.trim() !== '')
    .slice(-count)
    .map((line) => line.slice(0, 200));
}

// Rules are immutable preset data, so their compiled form can be cached.
const compiled = new WeakMap<ScreenRule, RegExp>();

function compile(rule: ScreenRule): RegExp {
  let regex = compiled.get(rule);
  if (regex === undefined) {
    regex = new RegExp(rule.pattern, rule.ignoreCase ? 'mi' : 'm');
    compiled.set(rule, regex);
  }
  return regex;
}

function tail(lines: string[], count: number | undefined): string {
  return (count === undefined ? lines : lines.slice(-count)).join('\n');
}

const DURATION_PART = /(\d+)\s*([hms])\b/g;
const SECONDS_PER_UNIT: Record<string, number> = { h: 3600, m: 60, s: 1 };

/**
 * Seconds in a duration as agents print them: `45s`, `11m 02s`, `1h 3m`;
 * undefined when there is no such part.
 */
export function parseElapsedSec(text: string): number | undefined {
  let total: number | undefined;
  for (const [, count, unit] of text.matchAll(DURATION_PART)) {
    total = (total ?? 0) + Number(count) * (SECONDS_PER_UNIT[unit ?? 's'] ?? 1);
  }
  return total;
}

function ruleMatches(rule: ScreenRule, text: string): boolean {
  const regex = compile(rule);
  if (rule.minElapsedSec === undefined) return regex.test(text);
  const elapsed = regex.exec(text)?.groups?.elapsed;
  const seconds = elapsed === undefined ? undefined : parseElapsedSec(elapsed);
  return seconds !== undefined && seconds >= rule.minElapsedSec;
}

function matchRules(
  lines: string[],
  state: ScreenStateName,
  rules: readonly ScreenRule[],
  final?: boolean,
): string | undefined {
  for (const [index, rule] of rules.entries()) {
    if (final !== undefined && (rule.final ?? false) !== final) continue;
    if (ruleMatches(rule, tail(lines, rule.lastLines))) {
      return `${state}:${rule.name ?? String(index)}`;
    }
  }
  return undefined;
}

function hasBusyMarker(lines: string[], marker: string): boolean {
  return tail(lines, BUSY_MARKER_LINES)
    .toLowerCase()
    .includes(marker.toLowerCase());
}

/** The state a screen shows for an agent of this preset, and the rule that said so. */
export function classifyScreen(screen: string, preset: Preset): ClassifyResult {
  const lines = cleanScreenLines(screen);
  const final = matchRules(lines, 'error', preset.states.error, true);
  if (final !== undefined) return { state: 'error', rule: final };
  for (const state of SCREEN_STATES) {
    const rule = matchRules(
      lines,
      state,
      preset.states[state],
      state === 'error' ? false : undefined,
    );
    if (rule !== undefined) return { state, rule };
    if (
      state === 'working' &&
      preset.busyMarker !== null &&
      hasBusyMarker(lines, preset.busyMarker)
    ) {
      return { state, rule: 'working:busyMarker' };
    }
  }
  return { state: 'unknown' };
}
