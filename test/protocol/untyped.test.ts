// Issue 29: an answer with control characters was cleaned silently (72
// characters reported, 54 typed). countUntyped says how many are dropped,
// and every door that writes an answer says so (respond, the view, the
// web page, MCP answer_request).
import { describe, expect, it } from 'vitest';
import { countUntyped, describeUntyped } from '../../src/protocol/sanitize.js';

describe('countUntyped', () => {
  it('counts escape sequences, control and invisible characters, not CRLF', () => {
    expect(countUntyped('plain answer')).toBe(0);
    expect(countUntyped('line one\r\nline two')).toBe(0);
    // ESC[31m (5) + ESC[0m (4) + BEL + a right-to-left override.
    expect(countUntyped('\x1b[31mred\x1b[0m\x07 \u202eok')).toBe(11);
  });

  it('says why in words', () => {
    expect(describeUntyped(1)).toMatch(/^1 character of it will not be typed/);
    expect(describeUntyped(18)).toMatch(
      /^18 characters .* never reach a pane$/,
    );
  });
});
