/**
 * OpenAI Codex CLI (`codex`, the Rust TUI). Its screen: `• ` transcript
 * bullets, a status line `• Working (12s • esc to interrupt)` while a turn
 * runs, a composer `› ` (older builds: a `▌` gutter) with footer hints such
 * as `? for shortcuts` or `⏎ send` and `NN% context left`, approval modals
 * (`Would you like to run the following command?` / `› 1. Yes, proceed (y)` /
 * `Press enter to confirm or esc to cancel`) and `■ ` error cells. A
 * message submitted before Codex finished starting (its background app
 * server) waits under a `Waiting for startup  · esc cancel` status line with
 * the composer drawn above it (0.169.0, captured in
 * test/fixtures/screens/codex/working/).
 */
import {
  CHOICE_MENU,
  DIALOG_FOOTER,
  EXITED_TO_SHELL,
  GENERIC_APPROVAL,
  GENERIC_ERROR,
  GENERIC_IDLE,
  GENERIC_WORKING,
  QUESTION_MENU,
  YES_NO_PROMPT,
  rule,
  withFallbacks,
} from './rules.js';
import type { PresetInput } from './types.js';

/**
 * How long Codex may say `Reconnecting... waiting for network` before macs
 * reads it as an error and a person is called: 5 minutes. Codex retries a
 * lost connection for as long as the turn lasts; past this, the network
 * (or the model server) is down, not blinking. The time is the one Codex
 * prints in the status line, `(11m 02s • esc to interrupt)`.
 */
export const CODEX_RECONNECT_LIMIT_SEC = 5 * 60;

export const CODEX_PRESET_INPUT: PresetInput = {
  name: 'codex',
  description: 'OpenAI Codex CLI',
  program: 'codex',
  knownScreens: true,
  states: {
    approval: withFallbacks(
      [
        QUESTION_MENU,
        DIALOG_FOOTER,
        // A menu without a question: the first-run sign-in menu (`> 1.
        // Sign in with ChatGPT` … `Press enter to continue`).
        CHOICE_MENU,
        rule(
          'menu-cursor',
          String.raw`^[ \t▌]*[›>][ \t]*\d+\.[ \t]+(?:Yes|No|Approve|Allow|Cancel|Deny|Always)\b`,
          { lastLines: 25 },
        ),
        // After an interrupt Codex asks the person what to do differently.
        rule(
          'interrupted',
          String.raw`^[ \t]*■[ \t]*Conversation interrupted\b`,
          {
            lastLines: 10,
          },
        ),
        YES_NO_PROMPT,
      ],
      GENERIC_APPROVAL,
    ),
    working: withFallbacks(
      [
        rule(
          'status-indicator',
          String.raw`\((?:\d+[hms][ \t]*)+[•·][^)\n]*\bto interrupt\)`,
          { lastLines: 15, ignoreCase: true },
        ),
        // A submitted message waits for something (Codex's startup) and can
        // be cancelled: `Waiting for startup  · esc cancel`. The message is
        // taken; typing more would be queued behind it.
        rule(
          'waiting-cancel',
          String.raw`^[ \t]*[•◦]?[ \t]*Waiting for\b[^\n]*[·•][ \t]*esc (?:to )?cancel\b`,
          { lastLines: 6 },
        ),
      ],
      GENERIC_WORKING,
    ),
    error: withFallbacks(
      [
        // Exited at start (a configuration error) to the shell it ran in.
        EXITED_TO_SHELL,
        // Still retrying a lost connection past the limit: the status line
        // `• Reconnecting... waiting for network (13m 43s • esc to
        // interrupt)`. Final, so the working rules do not take it first.
        rule(
          'reconnecting-too-long',
          String.raw`^[ \t]*[•◦]?[ \t]*Reconnecting\b[^\n]*\((?<elapsed>(?:\d+[hms][ \t]*)+)[•·]`,
          {
            lastLines: 15,
            final: true,
            minElapsedSec: CODEX_RECONNECT_LIMIT_SEC,
          },
        ),
        rule('error-cell', String.raw`^[ \t]*■[ \t]+\S`, { lastLines: 10 }),
        // The last cell of the transcript is an error, however many blank
        // rows Codex's inline viewport leaves above the composer: `■ …`
        // (wrapped lines indented), blank lines, then the composer and its
        // footer at the end of the screen.
        rule(
          'error-above-composer',
          String.raw`^[ \t]*■[ \t]+\S[^\n]*\n(?:[ \t]+\S[^\n]*\n){0,8}(?:[ \t]*\n)*[ \t]*[›▌][ \t][^\n]*(?:\n[^\n]*){0,4}(?![\s\S])`,
          { lastLines: 80 },
        ),
      ],
      GENERIC_ERROR,
    ),
    idle: withFallbacks(
      [
        rule('composer', String.raw`^[ \t]*[›▌][ \t]`, { lastLines: 10 }),
        rule(
          'footer-hints',
          String.raw`(?:\? for shortcuts|⏎ send|\d+% context left)`,
          { lastLines: 4 },
        ),
      ],
      GENERIC_IDLE,
    ),
  },
  // An approval modal (test/fixtures/screens/codex/approval/): `Would you
  // like to run the following command?`, the command, `› 1. Yes, proceed
  // (y)` highlighted, `Press enter to confirm or esc to cancel` last. Enter
  // takes the highlighted Yes; Escape is option 3 (No, and tell Codex what
  // to do differently).
  dialog: {
    name: 'permission',
    top: String.raw`^[ \t]*(?:Would you like to|Do you want to)\b[^\n]*\?$`,
    selected: String.raw`^[ \t]*›[ \t]*1\.[ \t]+Yes, proceed\b`,
    bottom: String.raw`^[ \t]*Press enter to confirm or esc to cancel$`,
    allowKeys: ['Enter'],
    denyKeys: ['Escape'],
  },
  submitKey: 'Enter',
  submitDelayMs: 200,
  paste: { bracketed: true, maxLiteralChars: 200 },
  hooks: 'codex',
  busyMarker: 'esc to interrupt',
};
