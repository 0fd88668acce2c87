import { describe, expect, it } from 'vitest';
import {
  conversationLines,
  findHeuristic,
  type HeuristicOptions,
} from '../../src/screen/heuristics.js';

const OPTIONS: HeuristicOptions = { lines: 20 };

/** A Claude Code-like screen: transcript, rule, composer, rule, hints. */
const claude = (...transcript: string[]) => [
  ...transcript,
  '',
  '─'.repeat(60),
  '❯ ',
  '─'.repeat(60),
  '  ? for shortcuts',
];

/** A plain program at a bare prompt. */
const plain = (...transcript: string[]) => [...transcript, '❯'];

describe('findHeuristic', () => {
  const cases: {
    name: string;
    screen: string[];
    state?: string;
    trigger: 'question' | 'ask' | 'done' | undefined;
    phrase?: string;
  }[] = [
    {
      name: 'a last line ending in a question mark',
      screen: claude(
        '● I looked at the schema.',
        '  Should we keep the index?',
      ),
      trigger: 'question',
    },
    {
      name: 'the same question while the agent works',
      screen: claude(
        '● I looked at the schema.',
        '  Should we keep the index?',
      ),
      state: 'working',
      trigger: undefined,
    },
    {
      name: 'the same question at an approval dialog',
      screen: claude('● Should we keep the index?'),
      state: 'approval',
      trigger: undefined,
    },
    {
      name: 'a question in markdown emphasis',
      screen: plain('**Which one do you prefer?**'),
      trigger: 'question',
    },
    {
      name: 'a decision phrase in the final message',
      screen: claude(
        '● Tests pass. Shall I open the pull request now.',
        '  (It needs a reviewer.)',
      ),
      trigger: 'ask',
      phrase: 'shall i',
    },
    {
      name: '"should I" only inside a code comment',
      screen: claude(
        '● Here is the loop:',
        '  ```ts',
        '  // should I refactor this? done later',
        '  for (const t of tokens) {',
        '  }',
        '  ```',
        '  I am continuing with the parser.',
      ),
      trigger: undefined,
    },
    {
      name: 'a question inside a fenced block at the end',
      screen: plain('Output:', '```', 'really?', '```'),
      trigger: undefined,
    },
    {
      name: 'a completion word in the final message',
      screen: claude('● I ran the migration.', '', '● Done. The tests pass.'),
      trigger: 'done',
      phrase: 'done',
    },
    {
      name: 'a completion word only in an earlier message',
      screen: claude(
        '● Step one is done.',
        '',
        '● Now reading the API module.',
      ),
      trigger: undefined,
    },
    {
      name: 'a completion word inside a longer word',
      screen: claude('● The run completed without errors.'),
      trigger: undefined,
    },
    {
      name: 'the last paragraph when there are no message bullets',
      screen: plain(
        'Step one is complete.',
        '',
        'Now I am reading the API module.',
      ),
      trigger: undefined,
    },
    {
      name: 'all set, in the last paragraph',
      screen: plain('Reading files.', '', 'All set for review of part one.'),
      trigger: 'done',
      phrase: 'all set',
    },
    {
      name: 'text typed in the composer does not count',
      screen: [
        '● I updated the README.',
        '',
        '─'.repeat(60),
        '❯ should I ask you something?',
        '─'.repeat(60),
      ],
      trigger: undefined,
    },
    {
      name: 'a question above a shell prompt',
      screen: ['Overwrite config.json?', 'user@host:~/proj$'],
      trigger: 'question',
    },
    {
      name: 'a question in a bordered box',
      screen: ['╭────────╮', '│ Which database? │', '╰────────╯', '> '],
      trigger: 'question',
    },
    { name: 'an empty screen', screen: ['', '❯'], trigger: undefined },
  ];

  for (const c of cases) {
    it(`${c.trigger ?? 'nothing'} for ${c.name}`, () => {
      const match = findHeuristic(c.screen, c.state ?? 'idle', OPTIONS);
      expect(match?.trigger).toBe(c.trigger);
      if (c.phrase) expect(match?.phrase).toBe(c.phrase);
    });
  }

  it('carries the last `lines` lines of the conversation, decoration removed', () => {
    const screen = claude(
      ...Array.from({ length: 30 }, (_, i) => `● line ${i}`),
      '● Should I continue?',
    );
    const match = findHeuristic(screen, 'idle', { lines: 3 });
    expect(match?.body).toBe('line 28\nline 29\nShould I continue?');
    expect(match?.line).toBe('Should I continue?');
  });

  it('gives the same key for the same conversation, whatever the composer holds', () => {
    const a = findHeuristic(claude('● Keep going?'), 'idle', OPTIONS);
    const b = findHeuristic(
      ['● Keep going?', '', '─'.repeat(30), '❯ no wait', '─'.repeat(30)],
      'idle',
      OPTIONS,
    );
    const c = findHeuristic(claude('● Keep going now?'), 'idle', OPTIONS);
    expect(a?.key).toBe(b?.key);
    expect(a?.key).not.toBe(c?.key);
  });

  it('takes its phrases and the question rule from the options', () => {
    const screen = plain('Proceed with plan B, boss');
    expect(findHeuristic(screen, 'idle', OPTIONS)).toBeUndefined();
    expect(
      findHeuristic(screen, 'idle', { lines: 5, ask: ['plan b'] })?.phrase,
    ).toBe('plan b');
    expect(
      findHeuristic(plain('Ready?'), 'idle', { lines: 5, question: false }),
    ).toBeUndefined();
    expect(
      findHeuristic(plain('Finished the work'), 'idle', { lines: 5, done: [] }),
    ).toBeUndefined();
  });
});

describe('conversationLines', () => {
  it('sets aside the composer, the hints under it and the rule above it', () => {
    expect(conversationLines(claude('● hi', '  there'))).toEqual([
      '● hi',
      '  there',
    ]);
    expect(conversationLines(['output', 'bash-5.2$ '])).toEqual(['output']);
    expect(conversationLines(['no prompt at all', ''])).toEqual([
      'no prompt at all',
    ]);
  });
});
