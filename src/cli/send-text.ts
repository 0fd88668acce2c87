import { ConfigError } from '../errors.js';
import { sanitizeText } from '../protocol/sanitize.js';
import type { CliDeps } from './options.js';

/**
 * The text of `macs send`: the argument, or stdin for `-` (or no argument
 * when stdin is not a terminal), at most `maxBytes`. Text that is empty once
 * sanitized is refused: nothing would be typed.
 */
export async function readSendText(
  text: string | undefined,
  deps: CliDeps,
  maxBytes: number,
  target = 'worker-1',
): Promise<string> {
  let input: string;
  if (text === '-' || (text === undefined && !deps.stdinIsTTY))
    input = await deps.readStdin(maxBytes);
  else if (text !== undefined) input = text;
  else
    throw new ConfigError('no text given', {
      hint: `macs send ${target} "text", or \`-\` to read it from stdin`,
    });
  if (!sanitizeText(input).trim())
    throw new ConfigError('the text is empty; nothing was sent');
  return input;
}
