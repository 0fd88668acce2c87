/**
 * Gemini CLI (`gemini`). Its screen: `✦ ` model turns, a loading line
 * `⠏ <witty phrase> (esc to cancel, 5s)` while a turn runs, the composer box
 * `│ >   Type your message or @path/to/file │`, tool confirmations
 * (`Allow execution of: 'ls'?` / `● 1. Allow once` / `3. No, suggest
 * changes (esc)`) and `✕ ` error messages.
 */
import {
  BOXED_COMPOSER,
  DIALOG_FOOTER,
  GENERIC_APPROVAL,
  GENERIC_ERROR,
  GENERIC_IDLE,
  GENERIC_WORKING,
  YES_NO_PROMPT,
  rule,
  withFallbacks,
} from './rules.js';
import { parsePreset, type Preset } from './types.js';

export const GEMINI_PRESET: Preset = parsePreset({
  name: 'gemini',
  description: 'Gemini CLI',
  program: 'gemini',
  knownScreens: true,
  states: {
    approval: withFallbacks(
      [
        // The radio list of a confirmation: `● 1. Allow once`.
        rule('confirm-options', String.raw`^[ \t│]*●[ \t]*\d+\.[ \t]+\S`, {
          lastLines: 30,
        }),
        rule(
          'waiting-confirmation',
          String.raw`Waiting for user confirmation`,
          {
            lastLines: 15,
          },
        ),
        DIALOG_FOOTER,
        YES_NO_PROMPT,
      ],
      GENERIC_APPROVAL,
    ),
    working: GENERIC_WORKING,
    error: withFallbacks(
      [rule('error-message', String.raw`^[ \t]*✕[ \t]+\S`, { lastLines: 10 })],
      GENERIC_ERROR,
    ),
    idle: withFallbacks(
      [
        BOXED_COMPOSER,
        rule('placeholder', String.raw`Type your message`, { lastLines: 8 }),
      ],
      GENERIC_IDLE,
    ),
  },
  submitKey: 'Enter',
  submitDelayMs: 200,
  paste: { bracketed: true, maxLiteralChars: 200 },
  hooks: 'none',
  // The cancel-timer rule (part of GENERIC_WORKING) covers its busy line.
  busyMarker: null,
});
