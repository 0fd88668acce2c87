import { describe, expect, it } from 'vitest';
import {
  createBridgeParser,
  type BridgeEvent,
  type ParserOptions,
} from '../../src/protocol/request-parser.js';
import {
  REQUEST_END,
  REQUEST_START,
} from '../../src/protocol/request-markers.js';
import { cleanBody } from '../../src/protocol/clean-body.js';

const ESC = '\u001b';
const START = `${REQUEST_START}>>`;

/** Feeds the chunks one push each, then flushes; returns every event. */
function parseChunks(chunks: string[], options?: ParserOptions): BridgeEvent[] {
  const parser = createBridgeParser(options);
  const events = chunks.flatMap((chunk) => parser.push(chunk));
  return [...events, ...parser.flush()];
}

function requests(events: BridgeEvent[]) {
  return events.filter((e) => e.type === 'request');
}

function request(body: string, attributes: Record<string, string> = {}) {
  return {
    type: 'request',
    attributes: { type: 'question', ...attributes },
    body,
  };
}

describe('createBridgeParser: basic blocks', () => {
  it('parses the SPEC example', () => {
    const stream = [
      'some output',
      '<<CONTROLLER_REQUEST id=q-17 type=question>>',
      'Should I migrate the users table now or after the API change?',
      'Options: (a) now (b) later',
      '<<CONTROLLER_REQUEST_END>>',
      'more output',
      '',
    ].join('\n');
    expect(parseChunks([stream])).toEqual([
      request(
        'Should I migrate the users table now or after the API change?\nOptions: (a) now (b) later',
        { id: 'q-17', type: 'question' },
      ),
    ]);
  });

  it('gives nothing for plain output', () => {
    expect(parseChunks(['hello\nworld\n', 'no markers here'])).toEqual([]);
  });

  it('defaults the type to question and keeps unknown keys', () => {
    const events = parseChunks([
      '<<CONTROLLER_REQUEST type=approval ticket=ABC-1 x_y-z=1>>\nok?\n<<CONTROLLER_REQUEST_END>>\n',
      '<<CONTROLLER_REQUEST>>\nplain\n<<CONTROLLER_REQUEST_END>>\n',
    ]);
    expect(events).toEqual([
      request('ok?', { type: 'approval', ticket: 'ABC-1', 'x_y-z': '1' }),
      request('plain'),
    ]);
  });

  it('reads CRLF line ends', () => {
    const stream =
      '<<CONTROLLER_REQUEST id=a>>\r\nline one\r\nline two\r\n<<CONTROLLER_REQUEST_END>>\r\n';
    expect(parseChunks([stream])).toEqual([
      request('line one\nline two', { id: 'a' }),
    ]);
  });

  it('takes text after the start marker and before the end marker as body', () => {
    const stream = `${START} first\nmiddle\nlast ${REQUEST_END}\n`;
    expect(parseChunks([stream])).toEqual([request('first\nmiddle\nlast')]);
  });

  it('parses a block on one line', () => {
    expect(
      parseChunks([
        `note: <<CONTROLLER_REQUEST id=x>> quick? ${REQUEST_END} tail\n`,
      ]),
    ).toEqual([request('quick?', { id: 'x' })]);
  });

  it('parses several one-line blocks on one line', () => {
    expect(
      parseChunks([`${START} a ${REQUEST_END} ${START} b ${REQUEST_END}\n`]),
    ).toEqual([request('a'), request('b')]);
  });

  it('finds markers after decoration', () => {
    const stream = `│ ● <<CONTROLLER_REQUEST id=d>>\n  body\n⎿ ${REQUEST_END}\n`;
    expect(parseChunks([stream])).toEqual([request('body', { id: 'd' })]);
  });

  it('matches markers case-sensitively', () => {
    const stream = '<<controller_request>>\nx\n<<CONTROLLER_REQUEST_end>>\n';
    expect(parseChunks([stream])).toEqual([]);
  });

  it('does not take the end marker, or look-alikes, for a start', () => {
    const stream = [
      REQUEST_END,
      '<<CONTROLLER_REQUESTS>>',
      '<<CONTROLLER_REQUEST_X>>',
      '<<CONTROLLER_REQUEST id=a',
      'text',
      REQUEST_END,
      '',
    ].join('\n');
    expect(parseChunks([stream])).toEqual([]);
  });

  it('keeps a marker that is not closed by >> out of play', () => {
    const stream = `<<CONTROLLER_REQUEST id=<x>>\nbody\n${REQUEST_END}\n`;
    expect(parseChunks([stream])).toEqual([]);
  });

  it('keeps blank lines inside the body and drops them at the edges', () => {
    const stream = `${START}\n\n  para one\n\n  para two\n\n${REQUEST_END}\n`;
    expect(parseChunks([stream])).toEqual([request('para one\n\npara two')]);
  });

  it('gives an empty body for an empty block', () => {
    expect(parseChunks([`${START}\n${REQUEST_END}\n`])).toEqual([request('')]);
  });

  it('ignores a stray end marker', () => {
    expect(
      parseChunks([`${REQUEST_END}\n${START}\nx\n${REQUEST_END}\n`]),
    ).toEqual([request('x')]);
  });

  it('keeps unicode in the body', () => {
    const stream = `${START}\nÇa va? 😀 — 日本語\n${REQUEST_END}\n`;
    expect(parseChunks([stream])).toEqual([request('Ça va? 😀 — 日本語')]);
  });
});

describe('createBridgeParser: terminal noise', () => {
  it.each([
    [
      'colours around the markers',
      `${ESC}[1;33m<<CONTROLLER_REQUEST id=c>>${ESC}[0m\n${ESC}[2mbody${ESC}[0m\n${ESC}[1m${REQUEST_END}${ESC}[0m\n`,
    ],
    [
      'colours inside the markers',
      `<<CONTROLLER_${ESC}[31mREQUEST id=${ESC}[32mc${ESC}[0m>>\nbody\n<<CONTROLLER_REQUEST${ESC}[0m_END>>\n`,
    ],
    [
      'cursor moves and OSC titles',
      `${ESC}]0;claude${ESC}\\${ESC}[2K${ESC}[1G<<CONTROLLER_REQUEST id=c>>${ESC}[?25l\n${ESC}[3Cbody\n${ESC}]2;done\u0007${REQUEST_END}\n`,
    ],
    [
      'a spinner line cleared with CR and erase-in-line',
      `⠋ Thinking about the problem...\r${ESC}[K<<CONTROLLER_REQUEST id=c>>\nbody\n⠙ still going\r${ESC}[2K${REQUEST_END}\n`,
    ],
    [
      'bracketed paste and keypad modes',
      `${ESC}[?2004h${ESC}=<<CONTROLLER_REQUEST id=c>>${ESC}[200~\nbody${ESC}(B\n${REQUEST_END}${ESC}[201~\n`,
    ],
    [
      'backspaces that fix a typo',
      `<<CONTROLLER_REQUEST id=x\bc>>\nbodyy\b \b\n${REQUEST_END}\n`,
    ],
    [
      '8-bit CSI',
      `\u009b1m<<CONTROLLER_REQUEST id=c>>\u009b0m\nbody\n${REQUEST_END}\n`,
    ],
  ])('%s', (_name, stream) => {
    expect(parseChunks([stream])).toEqual([request('body', { id: 'c' })]);
  });

  it('shows what the terminal shows after a carriage return', () => {
    // The marker was overwritten on screen, so it is not a marker.
    const stream = `<<CONTROLLER_REQUEST>>\r${' '.repeat(30)}\nx\n${REQUEST_END}\n`;
    expect(parseChunks([stream])).toEqual([]);
  });
});

describe('createBridgeParser: chunking', () => {
  const sample = [
    'boot\r\n',
    `${ESC}[32m│ ● <<CONTROLLER_REQUEST id=q-1 type=review priority=high>>${ESC}[0m\r\n`,
    '│   Please review the diff.     │\r\n',
    `│   ${ESC}[1mCode:${ESC}[0m a | b            │\r\n`,
    `│ ${REQUEST_END}   │\r\n`,
    `${ESC}]0;title${ESC}\\noise\r\n`,
    `<<CONTROLLER_REQUEST id=../../etc/passwd>> one ${REQUEST_END}\n`,
    `${START}\nunterminated then restarted\n`,
    `<<CONTROLLER_REQUEST id=q-2>>\n😀 emoji line\n${REQUEST_END}`,
  ].join('');
  const expected = parseChunks([sample]);

  it('the sample gives the expected events', () => {
    expect(expected).toEqual([
      request('Please review the diff.\nCode: a | b', {
        id: 'q-1',
        type: 'review',
        priority: 'high',
      }),
      {
        type: 'attribute-dropped',
        key: 'id',
        value: '../../etc/passwd',
        reason: 'bad-value',
      },
      request('one'),
      {
        type: 'malformed',
        reason: 'restarted',
        firstLine: START,
        lines: 1,
        bytes: 'unterminated then restarted'.length,
      },
      request('😀 emoji line', { id: 'q-2' }),
    ]);
  });

  it('gives the same events when split at every offset', () => {
    for (let i = 0; i <= sample.length; i += 1) {
      const events = parseChunks([sample.slice(0, i), sample.slice(i)]);
      expect(events, `split at ${i}`).toEqual(expected);
    }
  });

  it('gives the same events one code unit at a time', () => {
    expect(parseChunks([...sample.split('')])).toEqual(expected);
  });

  it('holds a partial marker until the next chunk', () => {
    const parser = createBridgeParser();
    expect(parser.push('<<CONTROLLER_REQ')).toEqual([]);
    expect(parser.push('UEST id=a>>\nbody\n<<CONTROLLER_REQUEST_E')).toEqual(
      [],
    );
    expect(parser.push('ND>>')).toEqual([]);
    expect(parser.push('\n')).toEqual([request('body', { id: 'a' })]);
  });

  it('joins a CRLF split between chunks', () => {
    expect(
      parseChunks([`${START}\r`, '\nx\r', `\n${REQUEST_END}\r`, '\n']),
    ).toEqual([request('x')]);
  });

  it('joins an escape sequence split between chunks', () => {
    expect(
      parseChunks([
        `${START}\n${ESC}`,
        '[3',
        '1mx',
        `${ESC}]0;t`,
        `\u0007\n${REQUEST_END}\n`,
      ]),
    ).toEqual([request('x')]);
  });
});

describe('createBridgeParser: restarts and limits', () => {
  it('abandons a block when a second start comes before the end', () => {
    const stream = `<<CONTROLLER_REQUEST id=a>>\nfirst\n<<CONTROLLER_REQUEST id=b>>\nsecond\n${REQUEST_END}\n`;
    expect(parseChunks([stream])).toEqual([
      {
        type: 'malformed',
        reason: 'restarted',
        firstLine: '<<CONTROLLER_REQUEST id=a>>',
        lines: 1,
        bytes: 5,
      },
      request('second', { id: 'b' }),
    ]);
  });

  it('emits the dropped attributes of an abandoned block with it', () => {
    const stream = `<<CONTROLLER_REQUEST id="x">>\nfirst\n${START}\nsecond\n${REQUEST_END}\n`;
    expect(parseChunks([stream]).map((e) => e.type)).toEqual([
      'attribute-dropped',
      'malformed',
      'request',
    ]);
  });

  it('abandons a block with too many lines and then finds the next one', () => {
    const body = Array.from({ length: 4 }, (_, i) => `line ${i}`).join('\n');
    const stream = `${START}\n${body}\n${REQUEST_END}\n${START}\nok\n${REQUEST_END}\n`;
    expect(parseChunks([stream], { maxBlockLines: 3 })).toEqual([
      {
        type: 'malformed',
        reason: 'max-lines',
        firstLine: START,
        lines: 4,
        bytes: 27,
      },
      request('ok'),
    ]);
  });

  it('accepts a block with exactly maxBlockLines lines', () => {
    const stream = `${START}\na\nb\nc\n${REQUEST_END}\n`;
    expect(parseChunks([stream], { maxBlockLines: 3 })).toEqual([
      request('a\nb\nc'),
    ]);
  });

  it('abandons a block with too many bytes', () => {
    const stream = `${START}\n${'é'.repeat(30)}\n${'x'.repeat(50)}\n${REQUEST_END}\n`;
    expect(parseChunks([stream], { maxBlockBytes: 100 })).toEqual([
      {
        type: 'malformed',
        reason: 'max-bytes',
        firstLine: START,
        lines: 2,
        bytes: 111,
      },
    ]);
  });

  it('abandons an unterminated block at the default line limit', () => {
    const parser = createBridgeParser();
    const events = [
      ...parser.push('<<CONTROLLER_REQUEST id=big>>\n'),
      ...parser.push('x\n'.repeat(600)),
    ];
    expect(events).toEqual([
      {
        type: 'malformed',
        reason: 'max-lines',
        firstLine: '<<CONTROLLER_REQUEST id=big>>',
        lines: 501,
        bytes: 501 * 2 - 1,
      },
    ]);
    expect(parser.retained()).toBe('');
  });

  it('abandons an unterminated block at the default byte limit', () => {
    const parser = createBridgeParser();
    const line = `${'y'.repeat(999)}\n`;
    const events = [
      ...parser.push(`${START}\n`),
      ...parser.push(line.repeat(100)),
    ];
    expect(events).toEqual([
      {
        type: 'malformed',
        reason: 'max-bytes',
        firstLine: START,
        lines: 66,
        bytes: 66_000 - 1,
      },
    ]);
  });

  it('abandons a block whose raw text is mostly escape sequences', () => {
    // 40 visible bytes but well over 2 × 512 raw bytes.
    const noisy = `${`${ESC}[38;5;196m`.repeat(20)}x\n`;
    const events = parseChunks([`${START}\n`, noisy.repeat(40)], {
      maxBlockBytes: 512,
    });
    expect(events).toMatchObject([{ type: 'malformed', reason: 'max-bytes' }]);
  });

  it('leaves a block open at flush without an event', () => {
    const parser = createBridgeParser();
    expect(parser.push(`${START}\nstill writing`)).toEqual([]);
    expect(parser.flush()).toEqual([]);
    expect(parser.retained()).toBe(`${START}\nstill writing`);
  });

  it('completes a final end marker with no newline at flush', () => {
    const parser = createBridgeParser();
    expect(parser.push(`${START}\nx\n${REQUEST_END}`)).toEqual([]);
    expect(parser.flush()).toEqual([request('x')]);
    expect(parser.retained()).toBe('');
  });

  it('lets only the last of several starts on one line count', () => {
    const stream = `<<CONTROLLER_REQUEST id=a>> x <<CONTROLLER_REQUEST id=b>> y\nz\n${REQUEST_END}\n`;
    expect(parseChunks([stream])).toEqual([request('y\nz', { id: 'b' })]);
  });

  it('ignores a start after a one-line block when its block stays open', () => {
    const stream = `${START} a ${REQUEST_END} <<CONTROLLER_REQUEST id=b>> b\nc\n${REQUEST_END}\n`;
    expect(parseChunks([stream])).toEqual([request('a')]);
  });

  it('opens a block after an end marker on the same line', () => {
    const stream = `${START}\na\n${REQUEST_END} <<CONTROLLER_REQUEST id=b>>\nb\n${REQUEST_END}\n`;
    expect(parseChunks([stream])).toEqual([
      request('a'),
      request('b', { id: 'b' }),
    ]);
  });
});

describe('createBridgeParser: attributes', () => {
  const attrs = (text: string) =>
    parseChunks([`<<CONTROLLER_REQUEST ${text}>>\nbody\n${REQUEST_END}\n`]);

  it.each([
    ['id=q-17', { id: 'q-17' }],
    ['id=a.b:c_d-e', { id: 'a.b:c_d-e' }],
    [`id=${'x'.repeat(64)}`, { id: 'x'.repeat(64) }],
    ['priority=low', { priority: 'low' }],
    ['priority=normal', { priority: 'normal' }],
    ['priority=high', { priority: 'high' }],
    ['type=done', { type: 'done' }],
    ['type=anything-else', { type: 'anything-else' }],
    ['ID=x', { ID: 'x' }],
    [`${'k'.repeat(32)}=v`, { ['k'.repeat(32)]: 'v' }],
    ['  id=a \t type=review  ', { id: 'a', type: 'review' }],
  ])('keeps %j', (text, expected) => {
    expect(attrs(text)).toEqual([request('body', expected)]);
  });

  it.each([
    ['id=../../etc/passwd', 'id', '../../etc/passwd', 'bad-value'],
    [`id=${'x'.repeat(65)}`, 'id', 'x'.repeat(65), 'bad-value'],
    ['id=ünïcode', 'id', 'ünïcode', 'bad-value'],
    ['id="x"', 'id', '"x"', 'bad-value'],
    ["id='x'", 'id', "'x'", 'bad-value'],
    ['id=', 'id', '', 'bad-value'],
    ['id=a=b', 'id', 'a=b', 'bad-value'],
    ['id=a/b', 'id', 'a/b', 'bad-value'],
    ['id=$(rm)', 'id', '$(rm)', 'bad-value'],
    ['urgent', 'urgent', '', 'bad-value'],
    ['priority=urgent', 'priority', 'urgent', 'bad-value'],
    ['priority=HIGH', 'priority', 'HIGH', 'bad-value'],
    ['1id=x', '1id', 'x', 'bad-key'],
    ['_id=x', '_id', 'x', 'bad-key'],
    ['=x', '', 'x', 'bad-key'],
    [`${'k'.repeat(33)}=v`, 'k'.repeat(33), 'v', 'bad-key'],
    ['ключ=v', 'ключ', 'v', 'bad-key'],
    ['../x=v', '../x', 'v', 'bad-key'],
  ])('drops %j', (text, key, value, reason) => {
    expect(attrs(text)).toEqual([
      { type: 'attribute-dropped', key, value, reason },
      request('body'),
    ]);
  });

  it('keeps the first of a repeated key', () => {
    expect(attrs('id=a id=b type=x type=y')).toEqual([
      { type: 'attribute-dropped', key: 'id', value: 'b', reason: 'duplicate' },
      {
        type: 'attribute-dropped',
        key: 'type',
        value: 'y',
        reason: 'duplicate',
      },
      request('body', { id: 'a', type: 'x' }),
    ]);
  });

  it('keeps a valid value after an invalid one for the same key', () => {
    expect(attrs('id=../x id=ok')).toEqual([
      {
        type: 'attribute-dropped',
        key: 'id',
        value: '../x',
        reason: 'bad-value',
      },
      request('body', { id: 'ok' }),
    ]);
  });

  it('splits a quoted value with spaces into dropped tokens', () => {
    const events = attrs('title="two words" id=a');
    expect(events).toEqual([
      {
        type: 'attribute-dropped',
        key: 'title',
        value: '"two',
        reason: 'bad-value',
      },
      {
        type: 'attribute-dropped',
        key: 'words"',
        value: '',
        reason: 'bad-key',
      },
      request('body', { id: 'a' }),
    ]);
  });

  it('treats prototype names as ordinary keys', () => {
    expect(attrs('constructor=a toString=b hasOwnProperty=c')).toEqual([
      request('body', { constructor: 'a', toString: 'b', hasOwnProperty: 'c' }),
    ]);
  });

  it('cuts very long dropped values in the event', () => {
    const [dropped] = attrs(`id=${'/'.repeat(5000)}`);
    expect(dropped).toMatchObject({ type: 'attribute-dropped', key: 'id' });
    expect(dropped?.type === 'attribute-dropped' && dropped.value.length).toBe(
      101,
    );
  });

  it('never lets a dropped value into the request', () => {
    const events = attrs('id=../../etc/passwd type=../x priority=../y');
    const found = requests(events)[0];
    expect(
      found?.type === 'request' && JSON.stringify(found.attributes),
    ).not.toContain('..');
  });
});

describe('createBridgeParser: decoration', () => {
  it('removes a box around the whole block', () => {
    const stream = [
      '╭──────────────────────────────────────╮',
      '│ <<CONTROLLER_REQUEST id=box>>        │',
      '│   Which database should I use?       │',
      '│                                      │',
      '│   a | b   (table-ish content)        │',
      '│ <<CONTROLLER_REQUEST_END>>           │',
      '╰──────────────────────────────────────╯',
      '',
    ].join('\n');
    expect(parseChunks([stream])).toEqual([
      request('Which database should I use?\n\na | b   (table-ish content)', {
        id: 'box',
      }),
    ]);
  });

  it('removes a box when the first line sits on the marker line', () => {
    const stream = [
      '│ <<CONTROLLER_REQUEST>> Should I go on?   │',
      '│   Details follow here.                │',
      `│ ${REQUEST_END}                       │`,
      '',
    ].join('\n');
    expect(parseChunks([stream])).toEqual([
      request('Should I go on?\nDetails follow here.'),
    ]);
  });

  it('removes Claude-style bullets and indentation', () => {
    const stream = [
      '⏺ <<CONTROLLER_REQUEST id=c>>',
      '  ● Should I refactor the parser first?',
      '    It would make the next step easier.',
      `  ${REQUEST_END}`,
      '',
    ].join('\n');
    expect(parseChunks([stream])).toEqual([
      request(
        'Should I refactor the parser first?\nIt would make the next step easier.',
        {
          id: 'c',
        },
      ),
    ]);
  });

  it('keeps code indentation relative to the common indent', () => {
    const stream = `${START}\n    Is this right?\n      if (x) {\n        y();\n      }\n${REQUEST_END}\n`;
    expect(parseChunks([stream])).toEqual([
      request('Is this right?\n  if (x) {\n    y();\n  }'),
    ]);
  });
});

describe('cleanBody', () => {
  it.each([
    ['right-trims lines', ['a  ', 'b\t'], 'a\nb'],
    ['removes blank edges', ['', '  ', 'a', '', 'b', ' ', ''], 'a\n\nb'],
    ['removes the common indent', ['    a', '      b', '    c'], 'a\n  b\nc'],
    ['keeps mixed indentation', ['a', '  b'], 'a\n  b'],
    [
      'removes a │ box',
      ['│ a   │', '│   b │', '│     │', '│ c   │'],
      'a\n  b\n\nc',
    ],
    ['removes a ┃ bar on the left only', ['┃ a', '┃ b'], 'a\nb'],
    ['removes an indented box', ['   │ a │', '   │ b │'], 'a\nb'],
    ['keeps │ inside lines', ['x │ y', 'z'], 'x │ y\nz'],
    [
      'keeps a tree drawing',
      ['src/', '├── a.ts', '│   └── b.ts'],
      'src/\n├── a.ts\n│   └── b.ts',
    ],
    ['removes a consistent | border', ['| a', '| b |'], 'a\nb'],
    [
      'keeps a markdown table',
      ['| a | b |', '|---|---|', '| 1 | 2 |'],
      '| a | b |\n|---|---|\n| 1 | 2 |',
    ],
    ['keeps | when not on every line', ['| a', 'b'], '| a\nb'],
    ['keeps | inside code', ['run: ls | wc -l', 'ok?'], 'run: ls | wc -l\nok?'],
    ['keeps a trailing | that touches content', ['| a|', '| b|'], 'a|\nb|'],
    [
      'removes ● on the first line',
      ['● Should I?', '  more'],
      'Should I?\nmore',
    ],
    ['removes ⏺ then ⎿', ['⏺ ⎿  result?'], 'result?'],
    [
      'removes a bullet-only first line',
      ['⏺', '  ⎿ text', '    more'],
      'text\nmore',
    ],
    [
      'removes a lone • bullet',
      ['• Question?', '  detail'],
      'Question?\ndetail',
    ],
    ['keeps a • list', ['• one', '• two'], '• one\n• two'],
    [
      'keeps bullets after the first line',
      ['Pick:', '● a', '● b'],
      'Pick:\n● a\n● b',
    ],
    ['keeps a glued bullet', ['●x'], '●x'],
    ['removes box edges', ['┌──────┐', '│ a    │', '└──────┘'], 'a'],
    ['handles an empty body', [], ''],
    ['handles a blank body', ['  ', ''], ''],
    ['box with bullet', ['│ ● Q?   │', '│   more │'], 'Q?\nmore'],
  ])('%s', (_name, lines, expected) => {
    expect(cleanBody(lines)).toBe(expected);
  });
});

describe('createBridgeParser: retained()', () => {
  it('is empty when nothing is held', () => {
    const parser = createBridgeParser();
    parser.push('line\n');
    expect(parser.retained()).toBe('');
  });

  it('holds the partial line as pushed', () => {
    const parser = createBridgeParser();
    parser.push(`done\n${ESC}[31mpart`);
    expect(parser.retained()).toBe(`${ESC}[31mpart`);
  });

  it('holds the raw lines of an open block from the start of its line', () => {
    const parser = createBridgeParser();
    parser.push(
      `before\r\n${ESC}[1m│ <<CONTROLLER_REQUEST id=a>>\r\nbody\r\npar`,
    );
    expect(parser.retained()).toBe(
      `${ESC}[1m│ <<CONTROLLER_REQUEST id=a>>\r\nbody\r\npar`,
    );
  });

  it('lets a fresh parser resume with the same events', () => {
    const head = `x\n<<CONTROLLER_REQUEST id=../bad>>\nbody one\nbo`;
    const tail = `dy two\n${REQUEST_END}\n${START}\nnext\n${REQUEST_END}\n`;
    const original = createBridgeParser();
    expect(original.push(head)).toEqual([]);
    const resumed = createBridgeParser();
    expect(resumed.push(original.retained())).toEqual([]);
    const expected = [...original.push(tail), ...original.flush()];
    expect([...resumed.push(tail), ...resumed.flush()]).toEqual(expected);
    expect(expected).toHaveLength(3);
  });

  it('keeps only the tail of a huge line and still finds a marker at its end', () => {
    const parser = createBridgeParser({ maxBlockBytes: 1000 });
    for (let i = 0; i < 200; i += 1) parser.push('z'.repeat(1000));
    expect(parser.retained().length).toBeLessThanOrEqual(2000);
    parser.push(`${START} quick ${REQUEST_END}\n`);
    expect(parser.retained()).toBe('');
    expect(parser.flush()).toEqual([]);
    const events = createBridgeParser({ maxBlockBytes: 1000 });
    const all = [
      ...events.push('z'.repeat(200_000)),
      ...events.push(`${START} quick ${REQUEST_END}\n`),
    ];
    expect(all).toEqual([request('quick')]);
  });

  it('abandons an open block when one of its lines is too long to hold', () => {
    const parser = createBridgeParser({ maxBlockBytes: 1000 });
    parser.push(`${START}\nshort\n`);
    const events = parser.push('w'.repeat(5000));
    expect(events).toEqual([
      {
        type: 'malformed',
        reason: 'max-bytes',
        firstLine: START,
        lines: 1,
        bytes: 5,
      },
    ]);
    expect(parser.retained()).toBe('w'.repeat(2000));
  });
});

describe('createBridgeParser: openBlock()', () => {
  // Issue 29: a block whose end marker never comes was silent: the parser
  // held it and said nothing until maxBlockLines, so the bridge could not
  // show a person that a worker had asked. The parser stays pure and says
  // only what is open (the bridge decides by time and by the agent's state
  // when that is an incomplete request); these cases check what it says and
  // that saying it changes nothing.
  it('is undefined while no block is open', () => {
    const parser = createBridgeParser();
    expect(parser.openBlock()).toBeUndefined();
    parser.push('plain output\n');
    expect(parser.openBlock()).toBeUndefined();
    parser.push(`${START}\nbody\n${REQUEST_END}\n`);
    expect(parser.openBlock()).toBeUndefined();
  });

  it('describes an open block: start line, attributes, first lines cleaned', () => {
    const parser = createBridgeParser();
    const events = parser.push(
      [
        'some output',
        '● <<CONTROLLER_REQUEST id=x type=question>>',
        '',
        '  Should I drop the cache?',
        '  (a) yes (b) no',
        '  more',
        '',
      ].join('\n'),
    );
    expect(events).toEqual([]);
    expect(parser.openBlock(2)).toEqual({
      firstLine: '<<CONTROLLER_REQUEST id=x type=question>>',
      attributes: { id: 'x', type: 'question' },
      lines: 4,
      head: ['Should I drop the cache?', '(a) yes (b) no'],
    });
  });

  it('counts only complete lines: a partial line is not yet a body line', () => {
    const parser = createBridgeParser();
    parser.push(`${START}\nfirst\nsecond, still being writ`);
    expect(parser.openBlock()).toMatchObject({ lines: 1, head: ['first'] });
  });

  it('changes nothing: the end marker later completes the block once', () => {
    const parser = createBridgeParser();
    parser.push('<<CONTROLLER_REQUEST id=q1>>\n');
    parser.push('Which port?\n');
    expect(parser.openBlock()).toMatchObject({
      attributes: { id: 'q1', type: 'question' },
      lines: 1,
      head: ['Which port?'],
    });
    expect(parser.openBlock()).toEqual(parser.openBlock());
    const events = parser.push(`${REQUEST_END}\n`);
    expect(events).toEqual([request('Which port?', { id: 'q1' })]);
    expect(parser.openBlock()).toBeUndefined();
  });

  it('is gone once the block is abandoned, and a restarted block is the new one', () => {
    const parser = createBridgeParser({ maxBlockLines: 2 });
    parser.push(`${START}\none\n`);
    parser.push(`<<CONTROLLER_REQUEST id=b>>\nagain\n`);
    expect(parser.openBlock()).toMatchObject({
      attributes: { id: 'b' },
      head: ['again'],
    });
    parser.push('two\nthree\n');
    expect(parser.openBlock()).toBeUndefined();
  });
});
