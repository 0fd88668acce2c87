import { afterEach, describe, expect, it } from 'vitest';
import type { ReaderEvent } from '../../src/screen/fingerprint.js';
import {
  createCommittedLayer,
  type CommittedLayer,
} from '../../src/screen/committed.js';
import {
  createSeenPrints,
  fingerprintRequest,
  type SeenPrints,
} from '../../src/screen/fingerprint.js';
import { createScreen, type Screen } from '../../src/screen/terminal.js';

const END = '<<CONTROLLER_REQUEST_END>>';

const opened: { screen: Screen; committed: CommittedLayer }[] = [];
afterEach(() => {
  for (const { screen, committed } of opened.splice(0)) {
    committed.dispose();
    screen.dispose();
  }
});

function setup(
  options: { cols?: number; rows?: number; seen?: SeenPrints } = {},
) {
  const screen = createScreen({
    cols: options.cols ?? 40,
    rows: options.rows ?? 4,
    scrollback: 100,
  });
  const committed = createCommittedLayer({
    screen,
    parserOptions: {},
    historyLines: 50,
    seen: options.seen ?? createSeenPrints(),
  });
  opened.push({ screen, committed });
  return { screen, committed };
}

const lines = (...text: string[]) => text.map((l) => `${l}\r\n`).join('');

function requests(events: ReaderEvent[]) {
  return events
    .filter((e) => e.type === 'request')
    .map((e) => ({ attributes: e.attributes, body: e.body }));
}

describe('createCommittedLayer', () => {
  it('keeps the rows that left the screen as text, each once, in order', async () => {
    const { screen, committed } = setup();
    await screen.write(lines('one', 'two', 'three', 'four', 'five'));
    expect(committed.commit()).toEqual([]);
    expect(committed.history(10)).toEqual(['one', 'two']);
    expect(committed.end()).toBe(screen.baseY);
    expect(committed.commit()).toEqual([]);
    expect(committed.history(10)).toEqual(['one', 'two']);
    await screen.write(lines('six'));
    committed.commit();
    expect(committed.history(10)).toEqual(['one', 'two', 'three']);
    expect(committed.history(1)).toEqual(['three']);
  });

  it('joins the rows of a wrapped line before reading it', async () => {
    const { screen, committed } = setup({ cols: 10 });
    await screen.write(lines('abcdefghijklmno', 'x', 'y', 'z', 'w'));
    committed.commit();
    expect(committed.history(10)).toEqual(['abcdefghijklmno', 'x']);
  });

  it('reports a block once its rows have left the screen, and only once', async () => {
    const seen = createSeenPrints();
    const { screen, committed } = setup({ seen });
    await screen.write(
      lines('<<CONTROLLER_REQUEST id=a>>', 'which one?', END, '', '', ''),
    );
    expect(requests(committed.commit())).toEqual([
      { attributes: { id: 'a', type: 'question' }, body: 'which one?' },
    ]);
    expect(
      seen.has(fingerprintRequest({ id: 'a', type: 'question' }, 'which one?')),
    ).toBe(true);
    await screen.write(lines('more', 'and more'));
    expect(committed.commit()).toEqual([]);
  });

  it('does not report a block seen before', async () => {
    const seen = createSeenPrints([
      fingerprintRequest({ id: 'a', type: 'question' }, 'which one?'),
    ]);
    const { screen, committed } = setup({ seen });
    await screen.write(
      lines('<<CONTROLLER_REQUEST id=a>>', 'which one?', END, '', '', ''),
    );
    expect(committed.commit()).toEqual([]);
  });

  it('reports a malformed block from the committed rows', async () => {
    const { screen, committed } = setup();
    await screen.write(
      lines(
        '<<CONTROLLER_REQUEST id=a>>',
        'half',
        '<<CONTROLLER_REQUEST id=b>>',
        'x',
        '',
        '',
        '',
      ),
    );
    expect(committed.commit()).toEqual([
      {
        type: 'malformed',
        reason: 'restarted',
        firstLine: '<<CONTROLLER_REQUEST id=a>>',
        lines: 1,
        bytes: 4,
      },
    ]);
  });

  it('hands over a block still open at the last committed row', async () => {
    const { screen, committed } = setup();
    await screen.write(lines('<<CONTROLLER_REQUEST id=a>>', 'first'));
    expect(committed.openText()).toBe('');
    // Five rows and the cursor's: two have left a four-row screen.
    await screen.write(lines('second', 'third', 'fourth'));
    committed.commit();
    expect(committed.openText()).toBe('<<CONTROLLER_REQUEST id=a>>\nfirst\n');
    await screen.write(lines(END, '', '', ''));
    expect(requests(committed.commit())).toHaveLength(1);
    expect(committed.openText()).toBe('');
  });

  it('commits nothing on the alternate screen', async () => {
    const { screen, committed } = setup();
    await screen.write('\x1b[?1049h');
    await screen.write(lines('a', 'b', 'c', 'd', 'e', 'f'));
    expect(committed.commit()).toEqual([]);
    expect(committed.history(10)).toEqual([]);
  });

  it('starts over when the scrollback is cleared, and drops its text on clearHistory', async () => {
    const { screen, committed } = setup();
    await screen.write(
      lines('<<CONTROLLER_REQUEST id=a>>', 'x', 'y', 'z', 'w'),
    );
    committed.commit();
    expect(committed.openText()).not.toBe('');
    await screen.write('\x1b[3J');
    expect(committed.end()).toBe(0);
    expect(committed.openText()).toBe('');
    committed.clearHistory();
    expect(committed.history(10)).toEqual([]);
  });
});
