// The gemini preset reads Gemini CLI 0.61's screens: its composer is a rule
// line with a hint and a two-line footer under it, so an error message sits
// far from the bottom, and a composer holding text shows no placeholder.
// The screens are laid out as 0.61 draws them (real captures of the agents
// suite are in test/fixtures/screens/gemini/).
import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/config/presets/index.js';
import { classifyScreen } from '../../src/screen/classify.js';

const gemini = getPreset('gemini');
const RULE = '─'.repeat(120);

/** 0.61's bottom: the composer (rule, hint, prompt line) and the footer. */
const composer = (
  prompt = '>   Type your message or @path/to/file',
) => `${' '.repeat(104)}? for shortcuts
${RULE}
 Shift+Tab to accept edits

 ${prompt}

 workspace (/directory)                                   sandbox                                                /model
 /tmp/gx/work                                             no sandbox                                   gemini-2.5-flash`;

const HEADER = `
 ▝▜▄     Gemini CLI v0.61.0
   ▝▜▄
  ▗▟▀    Authenticated with gemini-api-key /auth
 ▝▀

Tips for getting started:
1. Create GEMINI.md files to customize your interactions
2. /help for more information
`;

const API_ERROR = `${HEADER}
 > hello

✕ [API Error: {"error":{"code":400,"message":"scripted failure","status":"INVALID_ARGUMENT"}}]


ℹ This request failed. Press F12 for diagnostics, or run /settings and change "Error Verbosity" to full for full
  details.


${composer()}`;

describe('gemini preset on Gemini CLI 0.61 screens', () => {
  it('reads an API error above the composer as error, however tall the footer', () => {
    // The ✕ line is more than 10 lines (the old rule's window) above the bottom.
    const lines = API_ERROR.split('\n');
    expect(
      lines.length - lines.findIndex((l) => l.startsWith('✕')),
    ).toBeGreaterThan(10);
    expect(classifyScreen(API_ERROR, gemini)).toEqual({
      state: 'error',
      rule: 'error:error-message',
    });
  });

  it('reads a wrapped error message as error', () => {
    const wrapped = API_ERROR.replace(
      '✕ [API Error: {"error"',
      `✕ [API Error: ${'x'.repeat(100)}\n  {"error"`,
    );
    expect(classifyScreen(wrapped, gemini).state).toBe('error');
  });

  it('an old error followed by a newer turn is history: idle', () => {
    const later = API_ERROR.replace(
      `\n\n${composer()}`,
      `\n > try again\n\n✦ It worked this time.\n\n${composer()}`,
    );
    expect(classifyScreen(later, gemini)).toEqual({
      state: 'idle',
      rule: 'idle:placeholder',
    });
    // A failed tool call in a box is not the turn's error either.
    const tool = API_ERROR.replace(
      `\n\n${composer()}`,
      `\n╭${'─'.repeat(40)}╮\n│ ✕  Shell false ${' '.repeat(25)}│\n╰${'─'.repeat(40)}╯\n\n${composer()}`,
    );
    expect(classifyScreen(tool, gemini).state).toBe('idle');
  });

  it('reads the composer holding text (typed, or a collapsed paste) as idle', () => {
    for (const prompt of ['> [Pasted Text: 28 lines]', '> Use sqlite.']) {
      const screen = `${HEADER}\n✦ Hello.\n\n\n${composer(prompt)}`;
      expect(classifyScreen(screen, gemini), prompt).toEqual({
        state: 'idle',
        rule: 'idle:composer',
      });
    }
  });

  it('still reads an older release’s boxed composer and its error', () => {
    const box = `╭${'─'.repeat(50)}╮
│ >   Type your message or @path/to/file            │
╰${'─'.repeat(50)}╯
 ~/proj (main*)      no sandbox (see /docs)      gemini-2.5-pro (98% context left)`;
    expect(
      classifyScreen(`✦ Reading.\n\n✕ [API Error: quota]\n\n${box}`, gemini)
        .state,
    ).toBe('error');
    expect(classifyScreen(`✦ Done.\n\n${box}`, gemini).state).toBe('idle');
  });
});
