import { describe, expect, it } from 'vitest';
import { renderLine, stripAnsi } from '../../src/protocol/text.js';

const ESC = '\u001b';

describe('stripAnsi', () => {
  it.each([
    ['plain text', 'hello world', 'hello world'],
    ['SGR colours', `${ESC}[1;31mred${ESC}[0m`, 'red'],
    ['SGR without params', `a${ESC}[mb`, 'ab'],
    ['cursor moves', `${ESC}[2J${ESC}[H${ESC}[10;4Hx${ESC}[3A`, 'x'],
    ['private params', `${ESC}[?2004h${ESC}[?25l${ESC}[?1049hok`, 'ok'],
    ['bracketed paste', `${ESC}[200~pasted${ESC}[201~`, 'pasted'],
    ['intermediate bytes', `${ESC}[1 qx`, 'x'],
    ['OSC title with BEL', `${ESC}]0;my title\u0007after`, 'after'],
    [
      'OSC with ESC backslash',
      `${ESC}]8;;http://x${ESC}\\link${ESC}]8;;${ESC}\\`,
      'link',
    ],
    ['OSC with C1 ST', `${ESC}]2;t\u009cafter`, 'after'],
    ['DCS', `${ESC}Pq#0;2;0;0;0${ESC}\\x`, 'x'],
    ['SOS/PM/APC', `${ESC}Xs${ESC}\\${ESC}^p${ESC}\\${ESC}_a${ESC}\\z`, 'z'],
    ['charset selection', `${ESC}(Babc${ESC})0`, 'abc'],
    ['keypad and save cursor', `${ESC}=${ESC}>${ESC}7x${ESC}8`, 'x'],
    ['8-bit CSI', `\u009b31mred\u009b0m`, 'red'],
    ['8-bit OSC', `\u009d0;t\u0007x`, 'x'],
    ['lone ESC at the end', `abc${ESC}`, 'abc'],
    ['ESC [ at the end', `abc${ESC}[`, 'abc'],
    ['unterminated CSI stops at a newline', `a${ESC}[12\nb`, 'a\nb'],
    ['unterminated OSC stops at a newline', `a${ESC}]0;title\nnext`, 'a\nnext'],
    ['unterminated OSC runs to the end', `a${ESC}]0;title`, 'a'],
    ['CAN aborts a control string', `${ESC}]0;t\u0018x`, 'x'],
    ['other controls are kept', 'a\tb\rc\bd', 'a\tb\rc\bd'],
    ['unicode is kept', 'héllo 😀 │ ●', 'héllo 😀 │ ●'],
    ['ESC before a non-sequence character', `${ESC}\u00e9x`, '\u00e9x'],
  ])('%s', (_name, input, expected) => {
    expect(stripAnsi(input)).toBe(expected);
  });
});

describe('renderLine', () => {
  it.each([
    ['plain', 'hello', 'hello'],
    ['right-trims', 'hello   \t ', 'hello'],
    ['keeps leading space and inner tabs', '  a\tb', '  a\tb'],
    ['carriage return overwrites', 'abc\rX', 'Xbc'],
    [
      'several overwrites',
      'progress 10%\rprogress 50%\rprogress 99%',
      'progress 99%',
    ],
    ['trailing carriage return changes nothing', 'abc\r', 'abc'],
    ['CRLF tail', 'abc\r\n', 'abc'],
    ['backspace', 'abd\bc', 'abc'],
    ['backspace at column 0', '\b\bab', 'ab'],
    [
      'drops other C0 controls and DEL',
      'a\u0000b\u0007c\u007fd\u001ee',
      'abcde',
    ],
    ['strips colours', `${ESC}[32mgreen${ESC}[0m`, 'green'],
    ['erase-in-line after CR', `Working on it...\r${ESC}[KDone`, 'Done'],
    ['erase whole line', `spinner text${ESC}[2K\rDone`, 'Done'],
    ['erase to start', `abcdef${ESC}[1Kx`, '      x'],
    ['surrogate pairs take one cell', '😀😀\rX', 'X😀'],
  ])('%s', (_name, input, expected) => {
    expect(renderLine(input)).toBe(expected);
  });
});
