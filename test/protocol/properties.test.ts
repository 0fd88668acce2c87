import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AGENT_NAME,
  ATTRIBUTE_VALUE,
  isSafeFileName,
  makeRequestId,
} from '../../src/protocol/ids.js';
import {
  createBridgeParser,
  type BridgeEvent,
  type ParserOptions,
} from '../../src/protocol/request-parser.js';
import { REQUEST_END } from '../../src/protocol/request-markers.js';
import { splitResponse } from '../../src/protocol/response.js';
import { hasInvisible, sanitizeText } from '../../src/protocol/sanitize.js';

const ESC = '\u001b';
const RUNS = { numRuns: 300 };

/** Pieces that make streams likely to hit every parser rule. */
const TOKENS = [
  '<<CONTROLLER_REQUEST>>',
  '<<CONTROLLER_REQUEST id=a>>',
  '<<CONTROLLER_REQUEST id=b type=review priority=high>>',
  '<<CONTROLLER_REQUEST id=../x priority=urgent id=b>>',
  REQUEST_END,
  '<<CONTROLLER_',
  'REQUEST',
  '_END>>',
  '<<',
  '>>',
  '\n',
  '\n',
  '\n',
  '\r\n',
  '\r',
  '\b',
  ' ',
  'text',
  'Should I?',
  '│ ',
  ' │',
  '● ',
  '⎿ ',
  'é',
  '😀',
  `${ESC}[31m`,
  `${ESC}[0m`,
  `${ESC}[K`,
  `${ESC}]0;title\u0007`,
  `${ESC}(B`,
  ESC,
  '\u009b',
  'x'.repeat(300),
  'y'.repeat(1100),
];

/** Marker combinations that share one line, which are rare at random. */
const SAME_LINE = [
  `<<CONTROLLER_REQUEST id=a>> a ${REQUEST_END} <<CONTROLLER_REQUEST id=b>> b`,
  `<<CONTROLLER_REQUEST id=a>> a <<CONTROLLER_REQUEST id=b>> b`,
  `<<CONTROLLER_REQUEST id=a>> a ${REQUEST_END} ${REQUEST_END}`,
  `x ${REQUEST_END} <<CONTROLLER_REQUEST id=c priority=bad>> c`,
  `<<CONTROLLER_REQUEST id=q"x">> q ${REQUEST_END}`,
];

const streamArb = fc
  .array(
    fc.oneof(
      { arbitrary: fc.constantFrom(...TOKENS), weight: 6 },
      { arbitrary: fc.constantFrom(...SAME_LINE), weight: 1 },
      { arbitrary: fc.string({ maxLength: 8 }), weight: 1 },
    ),
    { maxLength: 120 },
  )
  .map((parts) => parts.join(''));

const optionsArb: fc.Arbitrary<ParserOptions> = fc.record({
  maxBlockLines: fc.integer({ min: 1, max: 8 }),
  maxBlockBytes: fc.integer({ min: 8, max: 700 }),
});

/** Cut points for a string of length n, sorted. */
function cutsArb(n: number) {
  return fc
    .uniqueArray(fc.integer({ min: 0, max: n }), { maxLength: 12 })
    .map((cuts) => [...cuts].sort((a, b) => a - b));
}

function splitAt(s: string, cuts: number[]): string[] {
  const chunks: string[] = [];
  let prev = 0;
  for (const cut of cuts) {
    chunks.push(s.slice(prev, cut));
    prev = cut;
  }
  chunks.push(s.slice(prev));
  return chunks;
}

function run(
  chunks: string[],
  options: ParserOptions,
): { events: BridgeEvent[]; retained: string } {
  const parser = createBridgeParser(options);
  const events = chunks.flatMap((chunk) => parser.push(chunk));
  const retained = parser.retained();
  return { events: [...events, ...parser.flush()], retained };
}

/** C0, DEL or C1. */
function isControl(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

function utf8(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

describe('request parser properties', () => {
  it('gives the same events however the stream is chunked', () => {
    const arb = streamArb.chain((stream) =>
      fc.tuple(fc.constant(stream), cutsArb(stream.length), optionsArb),
    );
    fc.assert(
      fc.property(arb, ([stream, cuts, options]) => {
        const whole = run([stream], options);
        const chunked = run(splitAt(stream, cuts), options);
        expect(chunked.events).toEqual(whole.events);
        expect(chunked.retained).toBe(whole.retained);
      }),
      RUNS,
    );
  });

  it('never throws on arbitrary input', () => {
    const arb = fc
      .string({ unit: 'binary', maxLength: 2000 })
      .chain((s) => fc.tuple(fc.constant(s), cutsArb(s.length), optionsArb));
    fc.assert(
      fc.property(arb, ([s, cuts, options]) => {
        expect(() => run(splitAt(s, cuts), options)).not.toThrow();
      }),
      RUNS,
    );
  });

  it('keeps retained() bounded and a suffix of the stream', () => {
    const arb = fc
      .array(
        fc.oneof(streamArb, fc.string({ unit: 'binary', maxLength: 3000 })),
        {
          minLength: 1,
          maxLength: 8,
        },
      )
      .chain((chunks) => fc.tuple(fc.constant(chunks), optionsArb));
    fc.assert(
      fc.property(arb, ([chunks, options]) => {
        const parser = createBridgeParser(options);
        const bound = 4 * Math.max(options.maxBlockBytes ?? 0, 512);
        let seen = '';
        for (const chunk of chunks) {
          parser.push(chunk);
          seen += chunk;
          const retained = parser.retained();
          expect(utf8(retained)).toBeLessThanOrEqual(bound);
          expect(seen.endsWith(retained)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('resumes exactly from retained()', () => {
    const arb = streamArb.chain((stream) =>
      fc.tuple(
        fc.constant(stream),
        fc.integer({ min: 0, max: stream.length }),
        cutsArb(stream.length),
        optionsArb,
      ),
    );
    fc.assert(
      fc.property(arb, ([stream, resumeAt, cuts, options]) => {
        const head = stream.slice(0, resumeAt);
        const rest = stream.slice(resumeAt);
        const original = createBridgeParser(options);
        for (const chunk of splitAt(
          head,
          cuts.filter((c) => c <= resumeAt),
        )) {
          original.push(chunk);
        }
        const retained = original.retained();
        expect(head.endsWith(retained)).toBe(true);
        const expected = [...original.push(rest), ...original.flush()];

        const fresh = createBridgeParser(options);
        const actual = [
          ...fresh.push(retained),
          ...fresh.push(rest),
          ...fresh.flush(),
        ];
        expect(actual).toEqual(expected);
      }),
      RUNS,
    );
  });

  it('never lets an invalid attribute value into a request', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (value) => {
        const stream = `<<CONTROLLER_REQUEST id=${value}>>\nbody\n${REQUEST_END}\n`;
        for (const event of run([stream], {}).events) {
          if (event.type !== 'request') continue;
          for (const attribute of Object.values(event.attributes)) {
            expect(attribute).toMatch(ATTRIBUTE_VALUE);
          }
        }
      }),
      RUNS,
    );
  });
});

// Lines with no header-like words and no markers, never looking like a notes line (`n>`).
const plainLineArb = fc
  .string({ maxLength: 30 })
  .filter((line) => !/[\r\n]|instruction|notes|<<|>>|^n>/i.test(line));

const headerStyles: [string, string][] = [
  ['WORKER INSTRUCTIONS:', 'NOTES:'],
  ['**Worker Instructions:**', '**Notes:**'],
  ['## Worker Instructions', '## Notes'],
  ['worker instructions:', '**NOTES**:'],
];

// The splitter drops blank lines at both ends and keeps every other line as written.
function tidy(lines: string[]): string {
  const kept = [...lines];
  while (kept.length > 0 && kept[0]?.trim() === '') kept.shift();
  while (kept.length > 0 && kept[kept.length - 1]?.trim() === '') kept.pop();
  return kept.join('\n');
}

describe('response properties', () => {
  it('never puts a notes line into the instructions', () => {
    const arb = fc.record({
      instructions: fc.array(plainLineArb, { maxLength: 8 }),
      notes: fc.array(
        plainLineArb.map((line) => `n> ${line}`),
        {
          minLength: 1,
          maxLength: 8,
        },
      ),
      style: fc.constantFrom(...headerStyles),
      withInstructionsHeader: fc.boolean(),
      withMarkers: fc.boolean(),
      crlf: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, (c) => {
        const [instructionsHeader, notesHeader] = c.style;
        const lines = [
          ...(c.withInstructionsHeader ? [instructionsHeader] : []),
          ...c.instructions,
          notesHeader,
          ...c.notes,
        ];
        if (c.withMarkers) {
          lines.unshift('<<CONTROLLER_RESPONSE id=r-1>>');
          lines.push('<<CONTROLLER_RESPONSE_END>>');
        }
        const text = lines.join(c.crlf ? '\r\n' : '\n');
        const parsed = splitResponse(text);
        for (const line of parsed.instructions.split('\n')) {
          expect(line.startsWith('n>')).toBe(false);
        }
        expect(parsed.instructions).toBe(tidy(c.instructions));
        expect(parsed.notes).toBe(tidy(c.notes));
        expect(parsed.hasMarkers).toBe(c.withMarkers);
      }),
      RUNS,
    );
  });
});

describe('ids and sanitize properties', () => {
  it('makeRequestId always gives a safe file name', () => {
    const arb = fc.record({
      agent: fc.stringMatching(AGENT_NAME),
      workerId: fc.option(fc.stringMatching(ATTRIBUTE_VALUE), {
        nil: undefined,
      }),
      body: fc.string({ unit: 'binary', maxLength: 200 }),
      now: fc.date({ noInvalidDate: true }),
    });
    fc.assert(
      fc.property(arb, (input) => {
        const id = makeRequestId(
          input.workerId === undefined
            ? { agent: input.agent, body: input.body, now: input.now }
            : input,
        );
        expect(isSafeFileName(id)).toBe(true);
      }),
      RUNS,
    );
  });

  it('sanitizeText leaves no control characters except newline and tab', () => {
    const noisy = fc
      .array(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 20 }),
          fc.constantFrom(
            `${ESC}[31m`,
            `${ESC}]0;t\u0007`,
            ESC,
            '\u009b',
            '\r\n',
            '\r',
            '\u007f',
          ),
        ),
        { maxLength: 30 },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(noisy, (text) => {
        const bad = [...sanitizeText(text)].filter((ch) => {
          const code = ch.charCodeAt(0);
          return code !== 0x09 && code !== 0x0a && isControl(code);
        });
        expect(bad).toEqual([]);
      }),
      RUNS,
    );
  });

  it('sanitizeText leaves printable text alone', () => {
    // Printable and visible: invisible and direction-changing characters
    // are removed on purpose (SPEC §9).
    const printable = fc
      .string({ unit: 'grapheme', maxLength: 60 })
      .filter(
        (s) =>
          ![...s].some((ch) => isControl(ch.charCodeAt(0))) && !hasInvisible(s),
      );
    fc.assert(
      fc.property(printable, (text) => {
        expect(sanitizeText(text)).toBe(text);
      }),
      RUNS,
    );
  });
});
