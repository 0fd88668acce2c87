/**
 * A regular expression source as the config, the policy and the presets
 * write it: a non-empty JavaScript regex that compiles (screen rules are
 * compiled with the `m` flag, policy rules without; a source valid one way
 * is valid the other).
 */
import * as z from 'zod/mini';
import './zod.js';

function isValidRegex(source: string): boolean {
  try {
    new RegExp(source, 'm');
    return true;
  } catch {
    return false;
  }
}

/** A regex source that compiles, or "not a valid regular expression". */
export const PatternSchema = z
  .string()
  .check(
    z.minLength(1),
    z.refine(isValidRegex, { message: 'not a valid regular expression' }),
  );
