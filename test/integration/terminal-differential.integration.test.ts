// Issue 16, item 5: what the bridge reads must be what the person sees. The
// reader's terminal (src/screen/terminal.ts, xterm) acted on C1 controls that
// tmux drops: `OK to run: ls -la<U+009B>8Drm -rf /home` reached the answerer
// as `OK to runrm -rf /home` while the pane showed `ls -la8Drm -rf /home`.
// A differential property: random output (text, line ends, tabs, backspaces,
// C1 controls, colours, erase-to-end) drawn by a real tmux pane and by the
// reader's terminal must show the same text. Fixed seed here; the bench runs
// more cases (MACS_DIFF_RUNS).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createScreen } from '../../src/screen/terminal.js';
import { useTmuxHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';

const COLS = 40;
const ROWS = 12;
const RUNS = Number(process.env.MACS_DIFF_RUNS) || 25;
const SEED = 0x5eed_c1;

/** One piece of output: something a program might print. */
const piece = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9 .,:;/=-]{1,12}$/),
  fc.constantFrom('\n', '\r\n', '\t', '\b', ' '),
  fc.integer({ min: 0x80, max: 0x9f }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\x1b[1m', '\x1b[0m', '\x1b[31m', '\x1b[K', '\x1b[7m'),
);
const output = fc
  .array(piece, { minLength: 1, maxLength: 40 })
  .map((p) => p.join(''));

/** What the reader shows for output a program wrote (the tty turns LF into CRLF). */
async function readerShows(text: string): Promise<string> {
  const screen = createScreen({ cols: COLS, rows: ROWS });
  await screen.write(text.replace(/\r?\n/g, '\r\n'));
  const shown = screen.visibleText();
  screen.dispose();
  return shown;
}

describe('the reader shows what tmux shows (issue 16)', () => {
  const harness = useTmuxHarness();
  let cases = 0;

  async function tmuxShows(text: string): Promise<string> {
    const file = path.join(
      harness.home,
      `out-${Math.random().toString(36).slice(2)}`,
    );
    writeFileSync(file, text);
    // After the output, the pane's title is set (it draws nothing): once tmux
    // shows the title, it has drawn everything before it.
    // A session of its own, made at the size: the program draws at it.
    const name = `d${String((cases += 1))}`;
    const command = [
      'sh',
      '-c',
      `cat "$1"; printf '\\033]2;drawn\\007'; exec sleep 600`,
      'sh',
      file,
    ]
      .map((a) => `'${a.replaceAll("'", `'\\''`)}'`)
      .join(' ');
    const pane = (
      await harness.server.tmux(
        'new-session',
        '-d',
        '-s',
        name,
        '-x',
        String(COLS),
        '-y',
        String(ROWS),
        '-P',
        '-F',
        '#{pane_id}',
        command,
      )
    ).trim();
    await waitFor(
      async () =>
        (
          await harness.server.tmux(
            'display-message',
            '-p',
            '-t',
            pane,
            '#{pane_width}x#{pane_height} #{pane_title}',
          )
        ).trim() === `${COLS}x${ROWS} drawn`,
      { timeout: 10_000, message: 'the pane drew it' },
    );
    const shown = await harness.server.tmux('capture-pane', '-p', '-t', pane);
    await harness.server.tmux('kill-session', '-t', name);
    return shown
      .replace(/\n$/, '')
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n');
  }

  const trimmed = (text: string) => text.replace(/\n+$/, '');

  it('a C1 CSI, OSC or DCS written as UTF-8 is dropped, as tmux drops it', async () => {
    const text =
      'OK to run: ls -la\u009b8Drm -rf /home\nx\u009b2Jy\np\u009dq\u0090r\u009cs\n';
    expect(trimmed(await readerShows(text))).toBe(
      trimmed(await tmuxShows(text)),
    );
    expect(await readerShows(text)).toContain('ls -la8Drm -rf /home');
  });

  it(
    'random output: the same text on both screens',
    { timeout: 600_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(output, async (text) => {
          expect(trimmed(await readerShows(text))).toBe(
            trimmed(await tmuxShows(text)),
          );
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    },
  );
});
