import { afterEach, describe, expect, it } from 'vitest';
import { joinWrapped } from '../../src/screen/chrome.js';
import { createScreen, type Screen } from '../../src/screen/terminal.js';

const screens: Screen[] = [];
function screen(cols: number, rows: number, scrollback?: number): Screen {
  const created = createScreen({
    cols,
    rows,
    ...(scrollback === undefined ? {} : { scrollback }),
  });
  screens.push(created);
  return created;
}

afterEach(() => {
  for (const created of screens.splice(0)) created.dispose();
});

describe('createScreen', () => {
  it('renders plain output and reports its size', async () => {
    const term = screen(20, 3);
    await term.write('hello\r\nworld');
    expect(term.cols).toBe(20);
    expect(term.rows).toBe(3);
    expect(term.visibleText()).toBe('hello\nworld\n');
  });

  it('accepts bytes, including a UTF-8 character split across writes', async () => {
    const term = screen(20, 2);
    const bytes = new TextEncoder().encode('❯ ok');
    await term.write(bytes.slice(0, 2));
    await term.write(bytes.slice(2));
    expect(term.visibleText().split('\n')[0]).toBe('❯ ok');
  });

  it('marks wrapped rows and keeps the spaces at the wrap point', async () => {
    const term = screen(10, 4);
    await term.write('hello wor ld and more\r\nnext');
    const lines = term.lines().slice(0, 4);
    expect(lines).toEqual([
      { text: 'hello wor ', wrapped: false },
      { text: 'ld and mor', wrapped: true },
      { text: 'e', wrapped: true },
      { text: 'next', wrapped: false },
    ]);
    expect(joinWrapped(lines)).toEqual(['hello wor ld and more', 'next']);
  });

  it('applies cursor moves and line clears, as a redrawing UI sends them', async () => {
    const term = screen(30, 3);
    await term.write('⠋ Working...\r\nprompt> ');
    // Move up one row, clear it, draw the finished status.
    await term.write('\x1b[1A\r\x1b[2K✓ Done\x1b[1B\r\x1b[8C');
    expect(term.visibleText()).toBe('✓ Done\nprompt>\n');
  });

  it('shows only the alternate screen while a full-screen program runs', async () => {
    const term = screen(20, 3);
    await term.write('shell line\r\n');
    await term.write('\x1b[?1049h\x1b[H\x1b[2JTUI');
    expect(term.visibleText()).toBe('TUI\n\n');
    await term.write('\x1b[?1049l');
    expect(term.visibleText().startsWith('shell line')).toBe(true);
  });

  it('keeps scrollback above the visible rows, oldest first', async () => {
    const term = screen(10, 2, 100);
    await term.write('one\r\ntwo\r\nthree\r\nfour');
    expect(term.lines().map((line) => line.text)).toEqual([
      'one',
      'two',
      'three',
      'four',
    ]);
    expect(term.visibleText()).toBe('three\nfour');
  });

  it('drops rows beyond the scrollback limit', async () => {
    const term = screen(10, 2, 1);
    await term.write('one\r\ntwo\r\nthree\r\nfour');
    expect(term.lines().map((line) => line.text)).toEqual([
      'two',
      'three',
      'four',
    ]);
  });

  it('resizes', async () => {
    const term = screen(10, 2);
    term.resize(40, 5);
    await term.write('a line longer than ten columns');
    expect(term.cols).toBe(40);
    expect(term.rows).toBe(5);
    expect(term.visibleText().split('\n')[0]).toBe(
      'a line longer than ten columns',
    );
  });
});
