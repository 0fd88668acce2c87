import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/config/presets/index.js';
import { parsePreset } from '../../src/config/presets/types.js';
import {
  classifyScreen,
  cleanScreenLines,
  parseElapsedSec,
} from '../../src/screen/classify.js';

// Screens written for these tests, shaped like each agent's UI. `RULE` is
// the full-width rule agents draw around their composer.
const RULE = '─'.repeat(60);
const filler = (count: number) =>
  Array.from({ length: count }, (_, i) => `  output line ${i + 1}`).join('\n');

const CLAUDE_COMPOSER = `${RULE}\n❯ \n${RULE}\n  ? for shortcuts`;

const claude = {
  working: `● I'll update the parser first.

● Read(src/parser.ts)
  ⎿  Read 120 lines

✽ Reticulating… (esc to interrupt · 14s · ↓ 310 tokens)

${CLAUDE_COMPOSER}
`,
  workingNoHint: `● Update(src/parser.ts)
  ⎿  Updated src/parser.ts with 3 additions

✶ Simmering… (2m 5s · ↑ 1.2k tokens)
  ⎿  ☐ Add CRLF test
     ☒ Fix the parser

${CLAUDE_COMPOSER}`,
  toolRunning: `● Bash(npm test)
  ⎿  Running… (8s · timeout 2m)

${CLAUDE_COMPOSER}`,
  idle: `● Done. The parser now handles CRLF. Want me to add a changelog entry?

✻ Worked for 42s

${CLAUDE_COMPOSER}


`,
  idleTyped: `● Done.

${RULE}
❯ now run the linter
${RULE}
  ⏵⏵ accept edits on (shift+tab to cycle)`,
  permission: `● Bash(rm -rf build)
  ⎿  Running…

${RULE}
 Bash command

   rm -rf build
   Remove the build folder

 Do you want to proceed?
 ❯ 1. Yes
   2. Yes, and don't ask again for rm commands in this project
   3. No, and tell Claude what to do differently (esc)

 Esc to cancel · Tab to add additional instructions`,
  choice: `● I have a question before I start.

${RULE}
←  ☐ Storage  ✔ Submit  →

Where should the cache live?

  1. [ ] Memory
     Fast, lost on restart
❯ 2. [ ] Disk
     Survives restarts

Enter to select · ↑/↓ to navigate · Esc to cancel`,
  interrupted: `● Bash(npm run build)
  ⎿  Interrupted · What should Claude do instead?

${CLAUDE_COMPOSER}`,
  apiError: `● Let me look at the logs.
  ⎿  API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}

${CLAUDE_COMPOSER}`,
  // Claude Code 2.1.197: the error is the turn's own bullet line, with a
  // hint under it and the turn's timer line before the composer.
  apiErrorBullet: `❯ Then run the tests

● API Error: 500 Internal server error. This is a server-side issue, usually temporary — try again in a moment.
  If it persists, check your inference gateway (127.0.0.1:45577).

✻ Brewed for 0s

${CLAUDE_COMPOSER}`,
  limit: `● Partial work saved.

  ⎿  5-hour limit reached ∙ resets 3pm

${CLAUDE_COMPOSER}`,
  oldDialogThenIdle: ` Do you want to proceed?
 ❯ 1. Yes
   2. No

 Esc to cancel
${filler(40)}

✻ Brewed for 12s

${CLAUDE_COMPOSER}`,
};

const codex = {
  working: `• I'll inspect the failing test first.

• Ran npm test
  └ 3 failing

• Working (23s • esc to interrupt)

› Summarize recent commits

  ? for shortcuts`,
  idle: `• All tests pass now.

› Ask Codex to do anything

  100% context left · ? for shortcuts`,
  approval: `  Would you like to run the following command?

  Reason: the tests need network access

  $ cargo test

› 1. Yes, proceed (y)
  2. Yes, and don't ask again for this command (p)
  3. No, and tell Codex what to do differently (esc)

  Press enter to confirm or esc to cancel`,
  error: `• Ran cargo build

■ stream disconnected before completion: connection reset

› Ask Codex to do anything

  98% context left`,
};

const GEMINI_BOX = `╭${'─'.repeat(50)}╮
│ >   Type your message or @path/to/file            │
╰${'─'.repeat(50)}╯
 ~/proj (main*)      no sandbox (see /docs)      gemini-2.5-pro (98% context left)`;

const gemini = {
  working: `✦ Let me check the build script.

⠼ Consulting the digital spirits (esc to cancel, 7s)

${GEMINI_BOX}`,
  idle: `✦ The build script now exits non-zero on failure.

${GEMINI_BOX}`,
  approval: `╭${'─'.repeat(50)}╮
│ ?  Shell npm install left-pad                     │
│                                                   │
│ npm install left-pad                              │
│                                                   │
│ Allow execution of: 'npm'?                        │
│                                                   │
│ ● 1. Allow once                                   │
│   2. Allow for this session                       │
│   3. No, suggest changes (esc)                    │
╰${'─'.repeat(50)}╯

⠏ Waiting for user confirmation...`,
  error: `✦ Reading the file.

✕ [API Error: You exceeded your current quota, please check your plan]

${GEMINI_BOX}`,
};

const aider = {
  idle: `Applied edit to src/app.py
Commit 1a2b3c4 fix: handle empty input
Tokens: 2.1k sent, 340 received. Cost: $0.01 message, $0.02 session.

>`,
  idleMode: `Tokens: 900 sent, 120 received.

architect> `,
  working: `> add tests for the parser

░█        Waiting for claude-3-5-sonnet`,
  approval: `src/app.py
Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: `,
  error: `> /run make

Traceback (most recent call last):
  File "/usr/lib/python3/aider/main.py", line 12, in main
    run()
KeyError: 'model'`,
};

const PI_EDITOR = `${RULE}

${RULE}
~/work/proj (main)
↑12k ↓1.1k R40k $0.120 (sub) 3.1%/200k (auto)`;

const pi = {
  working: ` $ npm test

 > 14 passed


 ⠴ Working...

${PI_EDITOR}`,
  idle: ` All 14 tests pass and the README is updated.

${PI_EDITOR}`,
  question: ` I found two stale config files.

 Shall I delete them as well?

${PI_EDITOR}`,
  questionAnswered: ` Shall I delete them as well?


 yes please


 ⠙ Working...

${PI_EDITOR}`,
  selector: ` $ rm -rf dist

 ⠇ Working...
${RULE}

 Approval Required
 rm -rf dist

 → Yes
   No

 ↑↓ navigate  enter select  escape/ctrl+c cancel

${RULE}
~/work/proj (main)`,
  error: ` Reading the failing test.

 Error: 429 Too Many Requests: rate limited, retry later

${PI_EDITOR}`,
  aborted: ` Starting the refactor of src/app.ts.

 Operation aborted

${PI_EDITOR}`,
};

const shell = {
  idle: `user@box:~/proj$ ls
README.md  src
user@box:~/proj$ `,
  idleTwoLine: `~/proj on main
❯ `,
  error: `~/proj on main
❯ false
~/proj on main
✘ 1 ❯`,
  notFound: `user@box:~$ gti status
bash: gti: command not found
user@box:~$`,
  confirm: `The following packages will be installed: jq
Do you want to continue? [Y/n] `,
  password: `user@box:~$ sudo apt update
[sudo] password for user: `,
  running: `user@box:~/proj$ npm install
npm http fetch GET 200 https://registry.npmjs.org/left-pad 51ms`,
  progress: `user@box:~$ curl -O https://example.com/big.iso
Downloading big.iso 100%`,
  dead: `user@box:~$ exit

Pane is dead (status 1, Tue Jan  2 10:00:00 2026)`,
};

const generic = {
  esc: `Processing your request (esc to interrupt)`,
  spinner: `loading model weights
⠋ Loading model...`,
  approval: `config.toml exists.
Overwrite config? [y/N] `,
  menu: `Which environment should I deploy to?

› 1. staging
  2. production`,
  idle: `Python 3.12.1
>>> `,
  error: `Traceback (most recent call last):
  File "app.py", line 3, in <module>
    main()
ValueError: bad config`,
  dead: `Pane is dead (status 137, Tue Jan  2 10:00:00 2026)`,
  unknown: `compiling 12 of 40 crates`,
};

type Case = [
  preset: string,
  label: string,
  screen: string,
  state: string,
  rule?: string,
];

const CASES: Case[] = [
  [
    'claude',
    'spinner line',
    claude.working,
    'working',
    'working:spinner-status',
  ],
  [
    'claude',
    'spinner without a hint',
    claude.workingNoHint,
    'working',
    'working:spinner-status',
  ],
  [
    'claude',
    'a tool still running',
    claude.toolRunning,
    'working',
    'working:tool-running',
  ],
  [
    'claude',
    'empty composer after a turn',
    claude.idle,
    'idle',
    'idle:ruled-composer',
  ],
  [
    'claude',
    'text typed in the composer',
    claude.idleTyped,
    'idle',
    'idle:ruled-composer',
  ],
  [
    'claude',
    'permission dialog',
    claude.permission,
    'approval',
    'approval:question-menu',
  ],
  [
    'claude',
    'question dialog',
    claude.choice,
    'approval',
    'approval:question-menu',
  ],
  [
    'claude',
    'interrupted turn',
    claude.interrupted,
    'approval',
    'approval:interrupted',
  ],
  [
    'claude',
    'API error before the composer',
    claude.apiError,
    'error',
    'error:api-error',
  ],
  [
    'claude',
    "API error as the turn's bullet (2.1.197)",
    claude.apiErrorBullet,
    'error',
    'error:api-error',
  ],
  ['claude', 'usage limit', claude.limit, 'error', 'error:limit-reached'],
  ['claude', 'old dialog scrolled far up', claude.oldDialogThenIdle, 'idle'],
  ['claude', 'plain text', 'hello', 'unknown'],
  [
    'codex',
    'status indicator',
    codex.working,
    'working',
    'working:status-indicator',
  ],
  ['codex', 'composer and footer', codex.idle, 'idle', 'idle:composer'],
  [
    'codex',
    'command approval',
    codex.approval,
    'approval',
    'approval:question-menu',
  ],
  ['codex', 'error cell', codex.error, 'error', 'error:error-cell'],
  [
    'gemini',
    'loading indicator',
    gemini.working,
    'working',
    'working:cancel-timer',
  ],
  ['gemini', 'input box', gemini.idle, 'idle', 'idle:boxed-composer'],
  [
    'gemini',
    'tool confirmation',
    gemini.approval,
    'approval',
    'approval:confirm-options',
  ],
  ['gemini', 'error message', gemini.error, 'error', 'error:error-message'],
  ['aider', 'prompt', aider.idle, 'idle', 'idle:prompt'],
  ['aider', 'mode prompt', aider.idleMode, 'idle', 'idle:prompt'],
  [
    'aider',
    'waiting spinner',
    aider.working,
    'working',
    'working:waiting-spinner',
  ],
  [
    'aider',
    'confirmation',
    aider.approval,
    'approval',
    'approval:confirm-prompt',
  ],
  ['aider', 'crash traceback', aider.error, 'error', 'error:traceback-end'],
  ['pi', 'loader', pi.working, 'working', 'working:loader'],
  ['pi', 'empty editor', pi.idle, 'idle', 'idle:editor'],
  [
    'pi',
    'question above the editor',
    pi.question,
    'approval',
    'approval:question-before-editor',
  ],
  [
    'pi',
    'question already answered',
    pi.questionAnswered,
    'working',
    'working:loader',
  ],
  [
    'pi',
    'selection dialog',
    pi.selector,
    'approval',
    'approval:confirm-cursor',
  ],
  ['pi', 'turn error', pi.error, 'error', 'error:turn-error'],
  ['pi', 'aborted turn', pi.aborted, 'approval', 'approval:aborted'],
  ['shell', 'prompt', shell.idle, 'idle', 'idle:prompt-suffix'],
  ['shell', 'two-line prompt', shell.idleTwoLine, 'idle', 'idle:bare-prompt'],
  ['shell', 'failed exit status', shell.error, 'error', 'error:exit-status'],
  [
    'shell',
    'command not found',
    shell.notFound,
    'error',
    'error:failure-before-prompt',
  ],
  [
    'shell',
    'y/n question',
    shell.confirm,
    'approval',
    'approval:yes-no-prompt',
  ],
  [
    'shell',
    'password prompt',
    shell.password,
    'approval',
    'approval:password-prompt',
  ],
  ['shell', 'command running', shell.running, 'unknown'],
  ['shell', 'progress ending in %', shell.progress, 'unknown'],
  ['shell', 'dead pane', shell.dead, 'error', 'error:pane-dead'],
  [
    'generic',
    'esc to interrupt',
    generic.esc,
    'working',
    'working:interrupt-hint',
  ],
  [
    'generic',
    'spinner line',
    generic.spinner,
    'working',
    'working:spinner-line',
  ],
  [
    'generic',
    'y/n question',
    generic.approval,
    'approval',
    'approval:yes-no-prompt',
  ],
  [
    'generic',
    'numbered menu',
    generic.menu,
    'approval',
    'approval:question-menu',
  ],
  ['generic', 'REPL prompt', generic.idle, 'idle', 'idle:bare-prompt'],
  ['generic', 'traceback', generic.error, 'error', 'error:traceback-end'],
  ['generic', 'dead pane', generic.dead, 'error', 'error:pane-dead'],
  ['generic', 'compiler output', generic.unknown, 'unknown'],
];

describe('classifyScreen', () => {
  it.each(CASES)('%s: %s', (presetName, _label, screen, state, rule) => {
    const result = classifyScreen(screen, getPreset(presetName));
    expect(result.state).toBe(state);
    if (rule !== undefined) expect(result.rule).toBe(rule);
    if (state === 'unknown') expect(result.rule).toBeUndefined();
  });

  it('does not take a numbered reply in the transcript for a menu', () => {
    const screen = `● Which database should I use?
  1. Postgres
  2. SQLite

❯ 1. Postgres, please
  ⎿  UserPromptSubmit hook succeeded

● Setting up Postgres.

✢ Brewing… (esc to interrupt · 5s)

${CLAUDE_COMPOSER}`;
    expect(classifyScreen(screen, getPreset('claude'))).toEqual({
      state: 'working',
      rule: 'working:spinner-status',
    });
  });

  it('falls back to the generic signs when the pane runs another agent', () => {
    // A pi screen watched with the claude and gemini presets.
    expect(classifyScreen(pi.idle, getPreset('claude'))).toEqual({
      state: 'idle',
      rule: 'idle:ruled-editor',
    });
    expect(classifyScreen(pi.working, getPreset('gemini'))).toEqual({
      state: 'working',
      rule: 'working:spinner-line',
    });
    expect(classifyScreen(claude.permission, getPreset('pi')).state).toBe(
      'approval',
    );
  });

  it('puts approval before working: a dialog under a live spinner', () => {
    const screen = `✻ Churning… (esc to interrupt · 3s)\n\n${claude.permission}`;
    expect(classifyScreen(screen, getPreset('claude')).state).toBe('approval');
  });

  it('puts working before error: error output while still busy', () => {
    const screen = `${claude.apiError}\n\n✻ Retrying… (esc to interrupt · 3s)`;
    expect(classifyScreen(screen, getPreset('claude')).state).toBe('working');
  });

  it('puts error before idle: a failed status on a prompt line', () => {
    const preset = getPreset('shell');
    expect(classifyScreen(shell.error, preset).state).toBe('error');
    expect(classifyScreen(shell.idleTwoLine, preset).state).toBe('idle');
  });

  it('reads through colour codes, CRLF, NBSP and trailing blank rows', () => {
    const screen =
      '\x1b[38;5;174m✻\x1b[39m \x1b[1mMulling…\x1b[22m (esc to interrupt · 2s)\r\n' +
      `${RULE}\r\n❯\u00a0\r\n${RULE}\r\n\r\n\r\n   \r\n`;
    expect(classifyScreen(screen, getPreset('claude'))).toEqual({
      state: 'working',
      rule: 'working:spinner-status',
    });
  });

  it('reports the busy marker as its own rule', () => {
    const preset = parsePreset({
      name: 'tool',
      program: 'tool',
      busyMarker: 'Ctrl-C to stop',
    });
    expect(classifyScreen('building… ctrl-c TO STOP', preset)).toEqual({
      state: 'working',
      rule: 'working:busyMarker',
    });
    const off = parsePreset({
      name: 'tool',
      program: 'tool',
      busyMarker: null,
    });
    expect(classifyScreen('esc to interrupt', off).state).toBe('unknown');
  });

  it('names unnamed rules by their index and honours lastLines', () => {
    const preset = parsePreset({
      name: 'tool',
      program: 'tool',
      busyMarker: null,
      states: {
        idle: ['^never$', { pattern: '^ready>$', lastLines: 1 }],
        error: [{ pattern: 'FATAL', ignoreCase: true }],
      },
    });
    expect(classifyScreen('boot\nready>', preset)).toEqual({
      state: 'idle',
      rule: 'idle:1',
    });
    // The prompt is no longer the last line: lastLines hides it.
    expect(classifyScreen('ready>\nstill loading', preset).state).toBe(
      'unknown',
    );
    expect(classifyScreen('fatal: disk full\nready>', preset)).toEqual({
      state: 'error',
      rule: 'error:0',
    });
  });

  it('checks final error rules first and times rules by their elapsed group', () => {
    const preset = parsePreset({
      name: 'tool',
      program: 'tool',
      busyMarker: null,
      states: {
        approval: ['^Allow\\?$'],
        working: [{ name: 'retrying', pattern: '^Retrying' }],
        error: [
          {
            name: 'stuck',
            pattern: '^Retrying \\((?<elapsed>[^)]*)\\)',
            final: true,
            minElapsedSec: 120,
          },
        ],
      },
    });
    expect(classifyScreen('Retrying (1m 59s)', preset)).toEqual({
      state: 'working',
      rule: 'working:retrying',
    });
    expect(classifyScreen('Retrying (2m 0s)', preset)).toEqual({
      state: 'error',
      rule: 'error:stuck',
    });
    expect(classifyScreen('Allow?\nRetrying (1h)', preset).state).toBe('error');
    expect(parseElapsedSec('11m 02s')).toBe(662);
    expect(parseElapsedSec('soon')).toBeUndefined();
  });

  it('refuses a timed rule without an elapsed group', () => {
    expect(() =>
      parsePreset({
        name: 'tool',
        program: 'tool',
        states: { error: [{ pattern: 'Retrying', minElapsedSec: 60 }] },
      }),
    ).toThrow(/minElapsedSec needs a group/);
  });
});

describe('cleanScreenLines', () => {
  it('strips escapes and trailing blanks but keeps inner blank lines', () => {
    expect(
      cleanScreenLines('\x1b]0;title\x07a  \n\n\x1b[31mb\x1b[0m\t \n\n \n'),
    ).toEqual(['a', '', 'b']);
  });

  it('returns no lines for an empty screen', () => {
    expect(cleanScreenLines('\n\n  \n')).toEqual([]);
  });
});
