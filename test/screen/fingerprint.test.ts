import { describe, expect, it } from 'vitest';
import type { BridgeEvent } from '../../src/protocol/request-parser.js';
import {
  createSeenPrints,
  fingerprintMalformed,
  fingerprintRequest,
  firstSightings,
  SEEN_MAX,
  SEEN_SAVED,
} from '../../src/screen/fingerprint.js';

const malformed = (
  firstLine: string,
  reason: 'max-lines' | 'max-bytes' | 'restarted' = 'restarted',
): Extract<BridgeEvent, { type: 'malformed' }> => ({
  type: 'malformed',
  reason,
  firstLine,
  lines: 1,
  bytes: 4,
});

describe('fingerprintRequest', () => {
  it('gives the same block the same fingerprint however it is wrapped', () => {
    expect(fingerprintRequest({ id: 'a' }, 'one two\nthree')).toBe(
      fingerprintRequest({ id: 'a' }, 'one\ntwo   three'),
    );
    expect(fingerprintRequest({ id: 'a' }, 'x')).not.toBe(
      fingerprintRequest({ id: 'b' }, 'x'),
    );
  });

  it('does not depend on the order of the attributes', () => {
    expect(fingerprintRequest({ id: 'a', type: 'question' }, 'x')).toBe(
      fingerprintRequest({ type: 'question', id: 'a' }, 'x'),
    );
    expect(fingerprintRequest({ id: 'a' }, 'x')).toMatch(/^[0-9a-f]{20}$/);
  });
});

describe('fingerprintMalformed', () => {
  it('knows a malformed block by its reason and first line, whitespace aside', () => {
    const print = fingerprintMalformed(
      malformed('<<CONTROLLER_REQUEST  id=a>>'),
    );
    expect(
      fingerprintMalformed(malformed('<<CONTROLLER_REQUEST id=a>> ')),
    ).toBe(print);
    expect(
      fingerprintMalformed(
        malformed('<<CONTROLLER_REQUEST id=a>>', 'max-lines'),
      ),
    ).not.toBe(print);
    expect(fingerprintRequest({}, '<<CONTROLLER_REQUEST id=a>>')).not.toBe(
      print,
    );
  });
});

describe('createSeenPrints', () => {
  it('says whether a fingerprint was known, and starts from a saved list', () => {
    const seen = createSeenPrints(['a']);
    expect(seen.has('a')).toBe(true);
    expect(seen.remember('a')).toBe(true);
    expect(seen.has('b')).toBe(false);
    expect(seen.remember('b')).toBe(false);
    expect(seen.remember('b')).toBe(true);
  });

  it('keeps the most recent sighting last', () => {
    const seen = createSeenPrints(['a', 'b', 'c']);
    seen.remember('a');
    expect(seen.recent()).toEqual(['b', 'c', 'a']);
    expect(seen.recent(2)).toEqual(['c', 'a']);
  });

  it('gives SEEN_SAVED fingerprints by default and forgets beyond SEEN_MAX', () => {
    const seen = createSeenPrints();
    for (let i = 0; i <= SEEN_MAX; i += 1) seen.remember(`p${i}`);
    expect(seen.has('p0')).toBe(false);
    expect(seen.has('p1')).toBe(true);
    expect(seen.recent(SEEN_MAX + 10)).toHaveLength(SEEN_MAX);
    expect(seen.recent()).toHaveLength(SEEN_SAVED);
    expect(seen.recent().at(-1)).toBe(`p${SEEN_MAX}`);
  });
});

describe('firstSightings', () => {
  const dropped: BridgeEvent = {
    type: 'attribute-dropped',
    key: 'priority',
    value: 'urgent',
    reason: 'bad-value',
  };
  const request: BridgeEvent = {
    type: 'request',
    attributes: { id: 'a', type: 'question' },
    body: 'which one?',
  };

  it('gives each new block with its warnings, and remembers it', () => {
    const seen = createSeenPrints();
    const events = [dropped, request, malformed('<<CONTROLLER_REQUEST>>')];
    expect(firstSightings(events, seen)).toEqual(events);
    expect(firstSightings(events, seen)).toEqual([]);
    expect(seen.recent()).toEqual([
      fingerprintRequest({ id: 'a', type: 'question' }, 'which one?'),
      fingerprintMalformed(malformed('<<CONTROLLER_REQUEST>>')),
    ]);
  });

  it('drops the warnings of a block seen before with it', () => {
    const seen = createSeenPrints([
      fingerprintRequest({ id: 'a', type: 'question' }, 'which one?'),
    ]);
    const other: BridgeEvent = { ...request, body: 'another' };
    expect(firstSightings([dropped, request, other], seen)).toEqual([other]);
  });
});
