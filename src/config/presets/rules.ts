/**
 * Screen rules shared by several presets. Each one describes a general trait
 * of terminal UIs (a spinner line, a numbered choice menu with a cursor, a
 * shell prompt, tmux's "Pane is dead"), never a string from one capture.
 * Sources are written with String.raw so backslashes read as in a regex.
 * See types.ts for how they are compiled and matched.
 */
import type { PresetInput } from './types.js';

type RuleInput = NonNullable<
  NonNullable<PresetInput['states']>['working']
>[number];

/** A named rule: `{ name, pattern, lastLines?, ignoreCase? }`. */
export function rule(
  name: string,
  pattern: string,
  options: {
    lastLines?: number;
    ignoreCase?: boolean;
    final?: boolean;
    minElapsedSec?: number;
  } = {},
): RuleInput {
  return { name, pattern, ...options };
}

/** A full-width horizontal rule line, as agents draw around their composer. */
export const HRULE = String.raw`[ \t]*─{8,}[^\n]*`;

// Glyphs that spinners cycle through: braille dots (most CLI spinners),
// Claude Code's star frames, and circle quarters.
const SPINNER_GLYPHS = String.raw`\u2800-\u28FF·✢✳✶✻✽◐◓◑◒◴◷◶◵`;

// ---------------------------------------------------------------- working

/** A spinner glyph, some words and an ellipsis: `⠹ Working...`. */
export const SPINNER_LINE = rule(
  'spinner-line',
  String.raw`^[ \t]*[${SPINNER_GLYPHS}][ \t]+\S[^\n]*?(?:…|\.\.\.)[ \t]*(?:\([^)\n]*\))?$`,
  { lastLines: 15 },
);

/**
 * A spinner with a parenthesised status, as Claude Code draws it:
 * `✻ Crunching… (esc to interrupt · 3m 0s · ↑ 6.6k tokens)`. Finished turns
 * read `✻ Brewed for 60s`, without the ellipsis, and do not match. A task
 * list may sit below the spinner, hence the wider window.
 */
export const SPINNER_STATUS = rule(
  'spinner-status',
  String.raw`^[ \t]*[*${SPINNER_GLYPHS}][ \t]+\S[^\n]*…[ \t]*\([^)\n]*(?:\d+[hms]\b|tokens?\b|interrupt)`,
  { lastLines: 30 },
);

/** "esc to interrupt" / "ctrl+c to interrupt" / "… to stop" hints. */
export const INTERRUPT_HINT = rule(
  'interrupt-hint',
  String.raw`\b(?:esc|ctrl\+c) to (?:interrupt|stop)\b`,
  { lastLines: 25, ignoreCase: true },
);

/** A cancel hint with a running timer: `(esc to cancel, 12s)`. */
export const CANCEL_TIMER = rule(
  'cancel-timer',
  String.raw`\(esc to cancel, [^)\n]*\d+[hms]\)`,
  { lastLines: 15, ignoreCase: true },
);

export const GENERIC_WORKING: RuleInput[] = [
  SPINNER_STATUS,
  SPINNER_LINE,
  INTERRUPT_HINT,
  CANCEL_TIMER,
];

// ---------------------------------------------------------------- approval

/** A composer line right under a rule: the agent is back at its prompt. */
const COMPOSER_BELOW = String.raw`^${HRULE}\n[ \t]*[❯>›]`;

/**
 * A question, then within a few lines a numbered option under a cursor:
 * `Do you want to proceed?` … `❯ 1. Yes`, or `› 1. Yes, proceed (y)`.
 * Not when a composer follows: then the menu is an old transcript line
 * (say, a reply `❯ 1. use postgres` to the agent's question).
 */
export const QUESTION_MENU = rule(
  'question-menu',
  String.raw`^[^\n]*\?[ \t│]*\n(?:[^\n]*\n){0,10}?[ \t│▌]*[❯›→▶][ \t]*\d+\.[ \t]+\S(?![\s\S]*${COMPOSER_BELOW})`,
  { lastLines: 30 },
);

/** The key hints under a selection dialog: "Esc to cancel", "Enter to confirm". */
export const DIALOG_FOOTER = rule(
  'dialog-footer',
  String.raw`\b(?:esc(?:ape)? to cancel(?!,)|enter (?:to )?(?:confirm|select)|press enter to confirm)\b`,
  { lastLines: 30, ignoreCase: true },
);

/** A line-mode yes/no question waiting on the last line: `[y/N]`, `(yes/no)`. */
export const YES_NO_PROMPT = rule(
  'yes-no-prompt',
  String.raw`(?:[[(]\[?(?:y|yes)\]?/\[?(?:n|no)\]?[^\])\n]*[\])]|\(Y\)es/\(N\)o[^\n]*)[ \t]*[:?]?[ \t]*$`,
  { lastLines: 1, ignoreCase: true },
);

/**
 * A menu waiting for a person's choice: numbered options `1.` and `2.`
 * (one under a cursor, `> 1. Sign in with ChatGPT`, or marked by colour
 * only), then a key hint "press enter to continue" (or confirm, select)
 * that ends the screen. Sign-in, onboarding and update menus draw no
 * question mark, so QUESTION_MENU misses them.
 */
const MENU_ITEM = String.raw`[ \t│▌]*(?:[❯›>→▶][ \t]*)?`;
export const CHOICE_MENU = rule(
  'choice-menu',
  String.raw`^${MENU_ITEM}1\.[ \t]+\S[^\n]*\n(?:[^\n]*\n){0,8}?${MENU_ITEM}2\.[ \t]+\S[^\n]*\n(?:[^\n]*\n){0,20}?[ \t│]*(?:press )?enter to (?:continue|confirm|select)\b[^\n]*(?:\n[^\n]*){0,2}(?![\s\S])`,
  { lastLines: 40, ignoreCase: true },
);

export const GENERIC_APPROVAL: RuleInput[] = [
  QUESTION_MENU,
  DIALOG_FOOTER,
  CHOICE_MENU,
  YES_NO_PROMPT,
];

// ---------------------------------------------------------------- idle

/** A prompt alone on the last line: `>`, `$`, `❯`, `>>>`. */
export const BARE_PROMPT = rule(
  'bare-prompt',
  String.raw`^[ \t]*(?:>>>|[>$#%❯➜λ»])[ \t]*$`,
  { lastLines: 1 },
);

/**
 * A shell prompt ending the last line: `user@host:~$`, `bash-5.2$`,
 * `[root@box dir]#`, `host%` (but not `100%`).
 */
export const PROMPT_SUFFIX = rule(
  'prompt-suffix',
  String.raw`(?:\S[$#]|[^\s\d]%|[\s~)\]\\]>|\s[$#%❯»])[ \t]*$`,
  { lastLines: 1 },
);

/** A composer between horizontal rules: `───` then `❯ …`, `> …` or `! …`. */
export const RULED_COMPOSER = rule(
  'ruled-composer',
  String.raw`^${HRULE}\n[ \t]*[❯>›!][^\n]*`,
  { lastLines: 12 },
);

/**
 * An editor between two rules, empty or holding a few lines of typed text
 * (no prompt glyph), as pi draws it.
 */
export const RULED_EDITOR = rule(
  'ruled-editor',
  String.raw`^${HRULE}\n(?:[^\n─]*\n){0,6}${HRULE}$`,
  { lastLines: 14 },
);

/** A composer drawn in a box: `│ > Type your message`. */
export const BOXED_COMPOSER = rule(
  'boxed-composer',
  String.raw`^[ \t]*[│┃][ \t]*[>❯›!*][ \t]`,
  { lastLines: 8 },
);

export const GENERIC_IDLE: RuleInput[] = [
  RULED_COMPOSER,
  RULED_EDITOR,
  BOXED_COMPOSER,
  BARE_PROMPT,
  PROMPT_SUFFIX,
];

// ---------------------------------------------------------------- error

/** tmux's remain-on-exit notice: `Pane is dead (status 1, …)`. */
export const PANE_DEAD = rule('pane-dead', String.raw`^Pane is dead\b`, {
  lastLines: 3,
});

/** Terminal notices such as `[Process completed]` or `[exited]`. */
export const PROCESS_EXITED = rule(
  'process-exited',
  String.raw`^\[(?:Process (?:completed|exited|terminated)|exited)\b[^\]\n]*\]`,
  { lastLines: 3 },
);

/** A Python traceback that is the last thing on the screen: the program died. */
export const TRACEBACK_END = rule(
  'traceback-end',
  String.raw`^Traceback \(most recent call last\):\n(?:[ \t][^\n]*\n)+[\w.]*(?:Error|Exception|Interrupt|Exit)\b[^\n]*(?![\s\S])`,
  { lastLines: 60 },
);

/** Usage or rate limits that stop the agent until later. */
export const LIMIT_REACHED = rule(
  'limit-reached',
  String.raw`\b(?:usage limit reached|limit reached\b[^\n]*\bresets\b|(?:hit|reached) your (?:usage |rate )?limit|rate limit exceeded|quota exceeded)`,
  { lastLines: 12, ignoreCase: true },
);

/**
 * A shell prompt showing a failed exit status on the last line, as status
 * segments of prompt themes do: `1 x`, `✘ 127`, `130 ✗`.
 */
export const EXIT_STATUS_PROMPT = rule(
  'exit-status',
  String.raw`(?:^|\s)\S{0,2}(?:[1-9]\d{0,2}[ \t]*[x✗✘×]|[✗✘×][ \t]*[1-9]\d{0,2})(?:[ \t]|$)`,
  { lastLines: 1 },
);

/** A failure message printed just above the prompt that followed it. */
export const FAILURE_BEFORE_PROMPT = rule(
  'failure-before-prompt',
  String.raw`(?:command not found|No such file or directory|Permission denied|Segmentation fault|core dumped|^Killed)[^\n]*\n(?:[^\n]*[$#%❯»]|[ \t]*>)[ \t]*$`,
  { lastLines: 2 },
);

// A shell prompt as the last line: `$`, `#`, `%` alone, or ending a line
// (`dev@box:~/project$`, `bash-5.2#`, `host%`, `~/project ❯`), not `100%`.
// Not a `❯` alone: agents draw their composer so too (the bridge still
// takes one for the shell's when the pane's program is a shell).
const SHELL_PROMPT = String.raw`(?:[ \t]*[$#%➜λ»]|[^\n]*(?:\S[$#]|[^\s\d]%|[ \t][$#%❯»]))[ \t]*`;

/**
 * An agent that exited to the shell it was started from: the last line is
 * a shell prompt and the line above it is not the rule over an agent's
 * composer. A program that ended
 * and left its shell's prompt is not waiting for the next instruction,
 * whatever it printed, and nothing may be typed into it. `final`: what the
 * agent left on screen (a spinner, a dialog) no longer counts. Only for
 * agents whose own prompt never looks like a shell's (not aider's `>`).
 */
export const EXITED_TO_SHELL_NAME = 'exited-to-shell';
export const EXITED_TO_SHELL = rule(
  EXITED_TO_SHELL_NAME,
  String.raw`(?<![\s\S])(?:(?![ \t]*─{8,}[ \t]*$)[^\n]*\n)?${SHELL_PROMPT}(?![\s\S])`,
  { lastLines: 2, final: true },
);

export const GENERIC_ERROR: RuleInput[] = [
  PANE_DEAD,
  PROCESS_EXITED,
  TRACEBACK_END,
  LIMIT_REACHED,
];

/**
 * An agent's own rules followed by the generic ones it does not already
 * have. The program in a pane is not always the agent it is named for (a
 * wrapper, an agent started inside another), so every agent preset still
 * recognises the general signs after its own.
 */
export function withFallbacks(
  own: readonly RuleInput[],
  fallbacks: readonly RuleInput[],
): RuleInput[] {
  const names = new Set(own.map((item) => nameOf(item)));
  return [...own, ...fallbacks.filter((item) => !names.has(nameOf(item)))];
}

function nameOf(item: RuleInput): string | undefined {
  return typeof item === 'string' ? undefined : item.name;
}
