import { describe, expect, it } from 'vitest';
import {
  PIECE_MAX_CHARS,
  PIECE_MAX_LINE_FEEDS,
  splitPieces,
} from '../../src/screen/pieces.js';

describe('splitPieces', () => {
  it('bounds characters and line feeds per piece and keeps surrogate pairs whole', () => {
    const text = `${'x\n'.repeat(PIECE_MAX_LINE_FEEDS * 2 + 5)}${'🚀'.repeat(PIECE_MAX_CHARS)}`;
    const pieces = splitPieces(text);
    expect(pieces.join('')).toBe(text);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(PIECE_MAX_CHARS);
      expect(piece.split('\n').length - 1).toBeLessThanOrEqual(
        PIECE_MAX_LINE_FEEDS,
      );
      const first = piece.charCodeAt(0);
      expect(first >= 0xdc00 && first <= 0xdfff).toBe(false);
    }
    expect(splitPieces('')).toEqual([]);
  });
});
