// The pi preset reads pi's screens whatever the editor's frame: pi's own
// theme draws the editor between two `───` rules; a powerline theme (the
// pi-powerline-footer extension, after oh-my-pi) draws a rounded box with
// the status in its top border and no footer while idle. The screens are
// composed from those two documented layouts.
import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/config/presets/index.js';
import { classifyScreen } from '../../src/screen/classify.js';

const pi = getPreset('pi');
const W = 100;

/** pi's own editor: two rules around the text, the footer under them. */
const ruled = (text = '') => `${'─'.repeat(W)}
${text}
${'─'.repeat(W)}
~/work/shop (main)
↑124 ↓45 R6.1k $0.001 4.9%/128k (auto)                                    (zai) glm-4.6v • thinking off`;

/** The powerline editor: the status in the top border, the text inside. */
const rounded = (...lines: string[]) => {
  const status = ' glm-4.6v  thinking:off  shop   main ';
  const top = `╭─${status}${'─'.repeat(W - 4 - status.length)}─╮`;
  const inner = W - 6;
  const rows = lines.length > 0 ? lines : [''];
  return [
    top,
    ...rows.map((line, i) =>
      i === rows.length - 1
        ? `╰─ ${line.padEnd(inner)} ─╯`
        : `│  ${line.padEnd(inner)}  │`,
    ),
  ].join('\n');
};

const ANSWER = ` Done: the tests pass (54 cases, 1.19 s).`;
const QUESTION = ` I can also add tests/conftest.py for the network mocks.

 Shall I create it now?`;

describe('pi preset with either editor frame', () => {
  it.each([
    ['ruled', ruled()],
    ['powerline', rounded()],
  ])('an idle editor (%s) reads idle', (_theme, editor) => {
    expect(classifyScreen(`${ANSWER}\n\n${editor}`, pi)).toEqual({
      state: 'idle',
      rule: 'idle:editor',
    });
  });

  it('a powerline editor holding text reads idle', () => {
    expect(
      classifyScreen(`${ANSWER}\n\n${rounded('first line', 'second')}`, pi)
        .state,
    ).toBe('idle');
  });

  it.each([
    ['ruled', ruled()],
    ['powerline', rounded()],
  ])(
    'a question right above the empty editor (%s) waits for the person',
    (_theme, editor) => {
      expect(classifyScreen(`${QUESTION}\n\n${editor}`, pi)).toEqual({
        state: 'approval',
        rule: 'approval:question-before-editor',
      });
    },
  );

  it('a question answered in the powerline editor is no longer asking', () => {
    expect(
      classifyScreen(`${QUESTION}\n\n${rounded('yes, go on')}`, pi).state,
    ).toBe('idle');
  });

  it.each([
    ['ruled', ruled()],
    ['powerline', rounded()],
  ])('an aborted turn and a failed turn (%s)', (_theme, editor) => {
    expect(
      classifyScreen(`${ANSWER}\n\n Operation aborted\n\n${editor}`, pi),
    ).toEqual({ state: 'approval', rule: 'approval:aborted' });
    expect(
      classifyScreen(`${ANSWER}\n\n Error: 429 rate limited\n\n${editor}`, pi),
    ).toEqual({ state: 'error', rule: 'error:turn-error' });
  });
});
