import { describe, expect, it } from 'vitest';
import {
  joinWrapped,
  removeCommonIndent,
  stripChrome,
} from '../../src/screen/chrome.js';

describe('stripChrome', () => {
  it.each([
    [
      'a box',
      ['╭──────────╮', '│ hello    │', '│ world    │', '╰──────────╯'],
      ['hello', 'world'],
    ],
    ['heavy borders', ['┏━━━━┓', '┃ x ┃', '┗━━━━┛'], ['x']],
    ['a rule line', ['above', '────────────', 'below'], ['above', 'below']],
    ['a left gutter only', ['▌ queued message', '▌'], ['queued message', '']],
    [
      'claude bullets',
      ['● Bash(ls)', '  ⎿  README.md', '     src'],
      ['Bash(ls)', '  README.md', '     src'],
    ],
    ['other bullets', ['⏺ Done', '• Ran tests'], ['Done', 'Ran tests']],
    ['a bullet inside a box', ['│ ● item │'], ['item']],
    ['blank lines', ['a', '', '   ', 'b'], ['a', '', '', 'b']],
  ])('removes %s', (_label, input, expected) => {
    expect(stripChrome(input)).toEqual(expected);
  });

  it.each([
    ['Markdown rules', ['---', 'title: x', '---']],
    ['ASCII tables', ['| a | b |', '|---|---|']],
    ['list markers', ['- one', '* two']],
    ['a bar inside text', ['x │ y']],
    ['a bullet mid-line', ['see ● here']],
  ])('keeps %s', (_label, input) => {
    expect(stripChrome(input)).toEqual(input);
  });

  it('keeps a marker line that sits inside decoration', () => {
    expect(
      stripChrome([
        '⏺ <<CONTROLLER_REQUEST id=q-1>>',
        '  Should I migrate now?',
        '  <<CONTROLLER_REQUEST_END>>',
      ]),
    ).toEqual([
      '<<CONTROLLER_REQUEST id=q-1>>',
      '  Should I migrate now?',
      '  <<CONTROLLER_REQUEST_END>>',
    ]);
  });
});

describe('joinWrapped', () => {
  it('joins continuation rows onto the row before them', () => {
    expect(
      joinWrapped([
        { text: 'short', wrapped: false },
        { text: 'a long line that ', wrapped: false },
        { text: 'wrapped twice and ', wrapped: true },
        { text: 'ends here', wrapped: true },
        { text: 'next', wrapped: false },
      ]),
    ).toEqual([
      'short',
      'a long line that wrapped twice and ends here',
      'next',
    ]);
  });

  it('keeps a leading continuation row as its own line', () => {
    expect(
      joinWrapped([
        { text: 'tail of a scrolled line', wrapped: true },
        { text: 'x', wrapped: false },
      ]),
    ).toEqual(['tail of a scrolled line', 'x']);
  });

  it('returns nothing for no rows', () => {
    expect(joinWrapped([])).toEqual([]);
  });
});

describe('removeCommonIndent', () => {
  it('removes the shared indent, ignoring blank lines', () => {
    expect(removeCommonIndent(['    a', '', '      b', '    c'])).toEqual([
      'a',
      '',
      '  b',
      'c',
    ]);
  });

  it('leaves unindented text alone', () => {
    expect(removeCommonIndent(['a', '  b'])).toEqual(['a', '  b']);
  });
});
