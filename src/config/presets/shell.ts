/**
 * A plain interactive shell (`bash`; zsh, fish and others match by program
 * name through a custom preset). Idle is a prompt on the last line, error is
 * a prompt that shows a failed exit status (or a failure printed right above
 * the prompt), approval is a line-mode question such as `[y/N]` or a
 * password prompt. A running command has no general screen sign: the
 * supervisor falls back to output activity.
 */
import {
  BARE_PROMPT,
  EXIT_STATUS_PROMPT,
  FAILURE_BEFORE_PROMPT,
  PANE_DEAD,
  PROCESS_EXITED,
  PROMPT_SUFFIX,
  YES_NO_PROMPT,
  rule,
} from './rules.js';
import type { PresetInput } from './types.js';

export const SHELL_PRESET_INPUT: PresetInput = {
  name: 'shell',
  description: 'an interactive shell',
  program: 'bash',
  states: {
    approval: [
      YES_NO_PROMPT,
      rule(
        'password-prompt',
        String.raw`(?:password|passphrase)[^\n]*:[ \t]*$`,
        { lastLines: 1, ignoreCase: true },
      ),
    ],
    working: [],
    error: [
      EXIT_STATUS_PROMPT,
      FAILURE_BEFORE_PROMPT,
      PANE_DEAD,
      PROCESS_EXITED,
    ],
    idle: [
      BARE_PROMPT,
      PROMPT_SUFFIX,
      // oh-my-zsh style: `➜  project git:(main)`.
      rule('arrow-prompt', String.raw`^[ \t]*➜[ \t]+\S`, { lastLines: 1 }),
    ],
  },
  submitKey: 'Enter',
  submitDelayMs: 50,
  // Shells treat pasted newlines as Enter; bracketed paste (bash 5.1+,
  // zsh 5.1+) keeps a multi-line paste in the line editor until submit.
  paste: { bracketed: true, maxLiteralChars: 200 },
  hooks: 'none',
  busyMarker: null,
};

/** Programs that are shells (`#{pane_current_command}`, a login shell's leading `-` dropped). */
const SHELL_COMMANDS: ReadonlySet<string> = new Set([
  'sh',
  'bash',
  'zsh',
  'fish',
  'dash',
  'ksh',
  'mksh',
  'tcsh',
  'csh',
  'ash',
  'nu',
  'elvish',
  'xonsh',
  'pwsh',
]);

/** Is this pane command a shell (as tmux reports the foreground program)? */
export function isShellCommand(command: string): boolean {
  return SHELL_COMMANDS.has(command.replace(/^-/, ''));
}
