/**
 * Aider (`aider`), a line-mode program built on prompt_toolkit. Its screen:
 * the prompt `> ` (or `architect> `, `ask> `, `multi> `) on the last line, a
 * `Waiting for <model>` spinner while the model runs, and confirmations such
 * as `Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]:`.
 */
import {
  GENERIC_APPROVAL,
  GENERIC_ERROR,
  GENERIC_IDLE,
  GENERIC_WORKING,
  YES_NO_PROMPT,
  rule,
  withFallbacks,
} from './rules.js';
import type { PresetInput } from './types.js';

export const AIDER_PRESET_INPUT: PresetInput = {
  name: 'aider',
  description: 'Aider',
  program: 'aider',
  knownScreens: true,
  states: {
    approval: withFallbacks(
      [
        rule(
          'confirm-prompt',
          String.raw`\(Y\)es/\(N\)o\b[^\n]*\[(?:Yes|No|All|Skip|Don't)[^\]\n]*\]:[ \t]*$`,
          { lastLines: 2 },
        ),
        YES_NO_PROMPT,
      ],
      GENERIC_APPROVAL,
    ),
    working: withFallbacks(
      [
        rule(
          'waiting-spinner',
          String.raw`^[^\n]{0,16}\bWaiting for\b[^\n]*$`,
          {
            lastLines: 2,
          },
        ),
      ],
      GENERIC_WORKING,
    ),
    error: GENERIC_ERROR,
    idle: withFallbacks(
      [rule('prompt', String.raw`^[\w.-]*>(?: [^\n]*)?$`, { lastLines: 1 })],
      GENERIC_IDLE,
    ),
  },
  submitKey: 'Enter',
  submitDelayMs: 200,
  // Aider reads a line at a time; bracketed paste keeps a multi-line answer
  // in one input (prompt_toolkit understands it).
  paste: { bracketed: true, maxLiteralChars: 200 },
  hooks: 'none',
  busyMarker: null,
};
