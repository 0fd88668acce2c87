// Issue 24, "The screens still misread": real screens of the pinned agents
// (and of pi 0.73.1) that the presets read wrong. Each case starts from a
// real capture in test/fixtures/screens/ and varies it the way the
// situation varies (another prompt, a longer task list, a later timer), so
// the rules hold for the situation and not for one capture.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODEX_RECONNECT_LIMIT_SEC } from '../../src/config/presets/codex.js';
import { getPreset } from '../../src/config/presets/index.js';
import { classifyScreen } from '../../src/screen/classify.js';

const SCREENS = path.join(import.meta.dirname, '../fixtures/screens');
const read = (name: string) =>
  readFileSync(path.join(SCREENS, name), 'utf8').replace(/\s+$/, '');
const stateOf = (preset: string, screen: string) =>
  classifyScreen(screen, getPreset(preset));

/** A screen's last line replaced by another. */
const withLastLine = (screen: string, line: string) =>
  screen.replace(/[^\n]*$/, line);

describe('an agent that ended and left its shell prompt is an error, never idle', () => {
  // Bug: the prompt after Codex's configuration error (and after Claude's
  // "Unable to connect") matched the generic shell-prompt idle rules, so a
  // delivery would have typed into the shell. Strategy: real captures, then
  // other prompts; `final`, so what the agent left on screen does not count.
  const codex = read('codex/error/config-error-exited-to-shell-0.169.0.txt');
  const claude = read(
    'claude/error/real-2.1.197-cannot-connect-exited-to-shell.txt',
  );

  it.each([
    ['dev@box:~/project#'],
    ['user@host:~/work$ '],
    ['bash-5.2$'],
    ['$'],
    ['host%'],
    ['~/project ❯'],
  ])('under the prompt %j', (prompt) => {
    for (const [preset, screen] of [
      ['codex', codex],
      ['claude', claude],
      ['gemini', codex],
      ['pi', codex],
    ] as const) {
      expect(
        stateOf(preset, withLastLine(screen, prompt)),
        `${preset} ${prompt}`,
      ).toEqual({ state: 'error', rule: 'error:exited-to-shell' });
    }
  });

  it('a spinner the agent left above the prompt does not make it working', () => {
    const screen = `• Working (12s • esc to interrupt)\n\n› Ask Codex\n\n  ? for shortcuts\n^C\ndev@box:~/project$`;
    expect(stateOf('codex', screen).state).toBe('error');
  });

  it("Claude's composer under its rule is no shell prompt", () => {
    const rule = '─'.repeat(80);
    expect(stateOf('claude', `● Done.\n\n${rule}\n❯`).state).toBe('idle');
  });

  it('a program that printed its failure and ended with no prompt after it', () => {
    expect(
      stateOf(
        'claude',
        read('claude/error/real-2.1.197-cannot-connect-ended.txt'),
      ),
    ).toEqual({ state: 'error', rule: 'error:cannot-connect' });
  });
});

describe('Codex reconnecting: working until the documented limit, then an error', () => {
  // Bug: "Reconnecting... waiting for network (11m …)" read working for as
  // long as Codex retried, so nobody heard of it. Strategy: the real screen
  // with the status line's timer set either side of the limit.
  const screen = read('codex/error/reconnecting-past-limit-0.169.0.txt');
  const at = (timer: string) => screen.replace(/\(13m 43s •/, `(${timer} •`);

  it('the limit is 5 minutes', () =>
    expect(CODEX_RECONNECT_LIMIT_SEC).toBe(300));

  it.each([
    ['19s', 'working'],
    ['1m 01s', 'working'],
    ['4m 59s', 'working'],
    ['5m 00s', 'error'],
    ['11m 02s', 'error'],
    ['1h 02m 03s', 'error'],
  ])('after %s it is %s', (timer, state) => {
    expect(stateOf('codex', at(timer)).state).toBe(state);
  });

  it('the working status of a turn that runs long is still working', () => {
    expect(
      stateOf(
        'codex',
        screen.replace('Reconnecting... waiting for network', 'Working'),
      ),
    ).toMatchObject({ state: 'working' });
  });
});

describe("a menu waiting for a person's choice is approval", () => {
  // Bug: Codex's first-run sign-in menu has no question mark, so it read
  // unknown; the person was never called. Strategy: the real menu, with the
  // cursor moved, and the phrase in a transcript above a composer.
  const menu = read('codex/approval/sign-in-menu-0.169.0.txt');

  it('the sign-in menu, whichever option the cursor is on', () => {
    expect(stateOf('codex', menu)).toEqual({
      state: 'approval',
      rule: 'approval:choice-menu',
    });
    const second = menu
      .replace('> 1. Sign in with ChatGPT', '  1. Sign in with ChatGPT')
      .replace(
        '  2. Sign in with Device Code',
        '> 2. Sign in with Device Code',
      );
    expect(stateOf('codex', second).state).toBe('approval');
    const colourOnly = menu.replace('> 1. Sign in', '  1. Sign in');
    expect(stateOf('codex', colourOnly).state).toBe('approval');
  });

  it('the same words in an answer above the composer are not a menu', () => {
    const screen = `• Steps:\n> 1. Open the page\n  2. Press enter to continue\n\n› Ask Codex to do anything\n\n  ? for shortcuts   100% context left`;
    expect(stateOf('codex', screen).state).toBe('idle');
  });
});

describe("Claude Code's plan approval and its composer, whatever is drawn under them", () => {
  const taskList = (count: number) =>
    Array.from(
      { length: count },
      (_, i) => `  ◻ Task ${String(i + 1)} of the cache work`,
    ).join('\n');

  // Bug: a plan approval with unfinished tasks under it read idle: the
  // question and its menu were beyond the rules' line windows. Strategy:
  // the real dialog, with a long task list drawn under the menu.
  it('a plan approval with a long list of open tasks under it is approval', () => {
    const dialog = read(
      'claude/approval/real-2.1.197-plan-approval-open-tasks.txt',
    );
    expect(stateOf('claude', `${dialog}\n\n${taskList(40)}`)).toEqual({
      state: 'approval',
      rule: 'approval:dialog-menu',
    });
  });

  // Bug: a prompt with more under it than the composer rule's window (an
  // editor's plan hint, tasks) read unknown. Strategy: the real composer
  // screen with footer lines added under it.
  it('the composer with many lines under it is idle', () => {
    const composer = read('claude/idle/real-2.1.197-composer-open-tasks.txt');
    expect(stateOf('claude', `${composer}\n${taskList(20)}`)).toEqual({
      state: 'idle',
      rule: 'idle:composer-frame',
    });
  });

  it('the composer handed to an external editor is idle', () => {
    expect(
      stateOf('claude', read('claude/idle/real-2.1.197-editor-open-tasks.txt')),
    ).toEqual({ state: 'idle', rule: 'idle:editor-open' });
  });

  it('a dialog answered earlier, the composer back under it, is idle', () => {
    const dialog = read(
      'claude/approval/real-2.1.197-plan-approval-open-tasks.txt',
    );
    const composer = read('claude/idle/real-2.1.197-composer-open-tasks.txt');
    expect(stateOf('claude', `${dialog}\n\n${composer}`).state).toBe('idle');
  });

  it('a plan opened in a terminal editor over Claude is not idle', () => {
    expect(
      stateOf(
        'claude',
        read('claude/unknown/real-2.1.197-plan-open-in-vim.txt'),
      ).state,
    ).toBe('unknown');
  });
});

describe('pi: a command that failed is an error until something follows it', () => {
  // Bug: after `!cmd` exited non-zero, pi's editor read idle. Strategy: the
  // real screens; text typed since, and a later command that succeeded.
  const failed = read('pi/error/bash-exit-status-0.73.1.txt');

  it('the failed command above the editor is error', () => {
    expect(stateOf('pi', failed)).toEqual({
      state: 'error',
      rule: 'error:command-failed',
    });
    expect(
      stateOf('pi', read('pi/error/bash-exit-status-long-output-0.73.1.txt'))
        .state,
    ).toBe('error');
  });

  it('a later command that succeeded makes it idle again', () => {
    expect(
      stateOf('pi', read('pi/idle/bash-after-failed-one-0.73.1.txt')).state,
    ).toBe('idle');
  });

  it('a command the person cancelled is not an error', () => {
    expect(stateOf('pi', failed.replace('(exit 2)', '(cancelled)')).state).toBe(
      'idle',
    );
  });
});
