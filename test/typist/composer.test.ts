import { describe, expect, it } from 'vitest';
import {
  composerProbe,
  composerText,
  typedText,
} from '../../src/typist/composer.js';

describe('composer helpers', () => {
  it('probes the tail of the last line, without spaces', () => {
    expect(composerProbe('first line\nrun the whole test suite now\n')).toBe(
      'holetestsuitenow',
    );
    expect(composerProbe('ok')).toBe('ok');
  });

  it('reads the composer up to the cursor, with the row above when the text wrapped there', () => {
    // "two words here" fills a 14-column pane: the text wrapped onto the cursor's row.
    const screen = 'one\ntwo words here\n❯ ab │\n';
    expect(composerText(screen, 4, 2, 14)).toBe('twowordshere❯ab');
    expect(composerText(screen, undefined, undefined, 14)).toBe('❯ab│');
    const long = `x\n❯ ${'y'.repeat(30)}\n`;
    expect(composerText(long, 32, 1, 80)).toBe(`❯${'y'.repeat(30)}`);
  });

  // Regression (issue 12, reproduction 7): `macs send` into `cat` pressed
  // Enter twice. After the submit key, cat's echo of the line sits just above
  // the cursor's new, empty row; that echo was read as text still waiting.
  it('never reads a shorter row above as the composer (a line program echoed it)', () => {
    const afterEnter = 'hello there\nhello there\n\n';
    expect(composerText(afterEnter, 0, 2, 80)).toBe('');
  });
});

describe('typedText', () => {
  it('types the text sanitized, without its trailing newlines', () => {
    expect(typedText('run the tests\n\n')).toBe('run the tests');
    expect(typedText('a\u001b[31mred\u001b[0m\r\nline\n')).toBe('ared\nline');
    expect(typedText('keeps\n\ninner blank lines')).toBe(
      'keeps\n\ninner blank lines',
    );
  });

  it('probes nothing in text that is all blank', () => {
    expect(composerProbe(typedText('  \n\t\n'))).toBe('');
  });
});

describe('composerText', () => {
  it('reads the last non-blank row when the cursor is unknown', () => {
    expect(composerText('one\ntwo\n\n   \n', undefined, undefined, 80)).toBe(
      'two',
    );
    expect(composerText('\n\n', undefined, undefined, 80)).toBe('');
  });

  it('takes the whole row up to the cursor when that is a probe long', () => {
    const screen = `${'z'.repeat(80)}\n❯ the text typed so far\n`;
    expect(composerText(screen, 24, 1, 80)).toBe('❯thetexttypedsofar');
  });
});
