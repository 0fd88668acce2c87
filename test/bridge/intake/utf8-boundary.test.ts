import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { incompleteUtf8TailLength } from '../../../src/bridge/intake/utf8-boundary.js';

describe('incompleteUtf8TailLength', () => {
  it.each([
    ['empty', [], 0],
    ['ascii', [0x61], 0],
    ['2-byte lead', [0x61, 0xc3], 1],
    ['complete 2-byte', [0xc3, 0xa9], 0],
    ['3-byte lead + 1', [0xe2, 0x82], 2],
    ['4-byte lead + 2', [0xf0, 0x9f, 0x98], 3],
    ['complete 4-byte', [0xf0, 0x9f, 0x98, 0x80], 0],
    ['overlong E0 80 is invalid', [0xe0, 0x80], 0],
    ['surrogate ED A0 is invalid', [0xed, 0xa0], 0],
    ['F4 90 is above U+10FFFF', [0xf4, 0x90], 0],
    ['invalid lead C0', [0xc0], 0],
    ['stray continuation', [0x80, 0x80, 0x80], 0],
  ])('%s', (_name, bytes, expected) => {
    expect(incompleteUtf8TailLength(Uint8Array.from(bytes))).toBe(expected);
  });

  it('matches a streaming decoder for any bytes cut anywhere', () => {
    const utf8ish = fc.oneof(
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom(0xc3, 0xe2, 0xf0, 0x9f, 0x80, 0xbf, 0xed, 0xf4),
    );
    fc.assert(
      fc.property(
        fc.array(utf8ish, { maxLength: 40 }),
        fc.array(fc.nat(40)),
        (raw, cuts) => {
          const bytes = Uint8Array.from(raw);
          const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
          const expected = decoder.decode(bytes);
          // Re-read from the last boundary, as the tail does.
          let offset = 0;
          let text = '';
          for (const cut of [...cuts].sort((a, b) => a - b)) {
            if (cut <= offset || cut > bytes.length) continue;
            const chunk = bytes.subarray(offset, cut);
            const used = chunk.length - incompleteUtf8TailLength(chunk);
            text += decoder.decode(chunk.subarray(0, used));
            offset += used;
          }
          text += decoder.decode(bytes.subarray(offset));
          expect(text).toBe(expected);
        },
      ),
    );
  });
});
