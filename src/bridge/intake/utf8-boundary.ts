/**
 * Where a chunk of UTF-8 may be cut. The log tail reads a pane's log in
 * chunks, and a chunk can end in the middle of a character; the bytes of
 * that unfinished character are held back for the next read, so every
 * chunk decodes on its own to exactly what one streaming decoder would
 * give for the whole file. Pure: no I/O.
 */

/**
 * Length (0-3) of a UTF-8 sequence at the end of `bytes` that is a valid
 * prefix but not yet complete. Decoding everything before it gives exactly
 * what a streaming decoder would, so those bytes can be held back safely.
 */
export function incompleteUtf8TailLength(bytes: Uint8Array): number {
  const length = bytes.length;
  for (let i = length - 1; i >= 0 && i >= length - 3; i -= 1) {
    const lead = bytes[i] ?? 0;
    if (lead >= 0x80 && lead <= 0xbf) continue; // continuation byte
    const needed = utf8SequenceLength(lead);
    if (needed <= length - i) return 0;
    for (let j = i + 1; j < length; j += 1) {
      const byte = bytes[j] ?? 0;
      const [low, high] =
        j === i + 1 ? secondByteRange(lead) : ([0x80, 0xbf] as const);
      if (byte < low || byte > high) return 0;
    }
    return length - i;
  }
  return 0;
}

// Bytes in the sequence a lead byte starts; 1 for ASCII and invalid bytes.
function utf8SequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 1;
}

// WHATWG Encoding: the second byte excludes overlongs, surrogates and > U+10FFFF.
function secondByteRange(lead: number): readonly [number, number] {
  switch (lead) {
    case 0xe0:
      return [0xa0, 0xbf];
    case 0xed:
      return [0x80, 0x9f];
    case 0xf0:
      return [0x90, 0xbf];
    case 0xf4:
      return [0x80, 0x8f];
    default:
      return [0x80, 0xbf];
  }
}
