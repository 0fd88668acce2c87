/**
 * Writing a command for a tmux control-mode client (see control.ts): each
 * argument quoted so tmux's command parser gives it back unchanged, the
 * whole command on one line. Pure.
 */

/**
 * Quote one argument for tmux's command parser as a double-quoted string.
 * Inside double quotes tmux expands `$VAR`, a leading `~`, and backslash
 * escapes; everything that could be read as one of those is escaped, and
 * control characters are written as escapes, so the argument tmux sees is
 * exactly `value` (a property test checks this against a real tmux).
 * A NUL cannot be passed at all.
 */
export function quoteControlArg(value: string): string {
  if (value.includes('\0'))
    throw new Error('a tmux argument cannot contain a NUL character');
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '\\' || ch === '"' || ch === '$' || ch === '~') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f)
      out += `\\${code.toString(8).padStart(3, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** One command line for control mode (never empty: an empty line detaches). */
export function formatControlCommand(args: readonly string[]): string {
  if (args.length === 0) throw new Error('empty tmux command');
  return args.map(quoteControlArg).join(' ');
}
