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

/** Shell options whose next argument is their value, not a script. */
const SHELL_OPTIONS_WITH_VALUE: ReadonlySet<string> = new Set([
  '-o',
  '+o',
  '-O',
  '+O',
  '--rcfile',
  '--init-file',
]);

/**
 * Is this argv a shell reading commands from its terminal (`bash`, `-zsh`,
 * `/bin/bash --login`), rather than one running a script (`bash build.sh`)
 * or a command string (`bash -c 'make'`, `sh -ec …`)? A nested shell at
 * its prompt is a shell waiting for a command, as its parent would be.
 */
export function isInteractiveShellArgv(argv: readonly string[]): boolean {
  const [command, ...args] = argv;
  if (!command || !isShellCommand(command.slice(command.lastIndexOf('/') + 1)))
    return false;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (SHELL_OPTIONS_WITH_VALUE.has(arg)) i += 1;
    // `-s`: commands from stdin, the rest are positional parameters.
    else if (arg === '-s' || arg === '-i') return true;
    else if (arg === '--command' || /^-[A-Za-z]*c[A-Za-z]*$/.test(arg))
      return false;
    else if (arg === '--' || !/^[-+]/.test(arg)) return false;
  }
  return true;
}
