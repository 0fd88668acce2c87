// Issue 29, part 1 (a regression): a program started after the bridge never
// got its answer. `macs bridge --worker-pane` on a pane showing a bash prompt
// took the `shell` preset once, and a shell is typed into only at its own
// prompt, so the answer to a script (or an agent) started in that pane
// afterwards waited forever, silently. Now the answer goes to the program
// that asked: the process group that held the pane's terminal when the
// request was read, while it holds it and waits for input; an agent started
// in the shell gets its own preset (`preset.changed`); a program that asked
// and ended is never typed for (a shell would run the answer); a long wait
// says why; and a person's `macs send` still refuses a busy shell.
//
// Strategy: a real bash pane on a private tmux server, the bridge started
// first (no preset named), then the program typed at the shell's prompt,
// as a person would; answers through `macs respond`; what the program read
// is what it prints, and witness files show what the shell ran.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTmuxHarness } from '../helpers/harness.js';
import {
  FAKE_AGENT,
  findEvents,
  readRecord,
  REQ,
  runMacs,
  waitForEvents,
} from '../helpers/macs.js';
import { waitFor } from '../helpers/wait-for.js';

describe('an answer reaches the program that asked (issue 29)', () => {
  const harness = useTmuxHarness({ gracefulStop: true });
  const file = (...parts: string[]) => path.join(harness.home, ...parts);
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

  /** A bash pane, tagged `w`, with the bridge started on it (no preset named). */
  async function bashWithBridge(): Promise<string> {
    const pane = await harness.server.spawnPane(
      ['bash', '--norc', '--noprofile'],
      { cwd: harness.home },
    );
    await harness.tagAgent(pane, 'w');
    harness.startBridge(['--worker-pane', pane, '--backend', 'file']);
    await waitForEvents(harness.home, 'bridge.started', { timeout: 20_000 });
    await waitFor(
      () =>
        findEvents(harness.home, 'state.changed').some(
          (e) => e.data?.to === 'idle',
        ),
      { timeout: 20_000, message: 'the shell read idle' },
    );
    return pane;
  }

  /** Type a command line at the shell's prompt, as a person does. */
  async function typeCommand(pane: string, line: string): Promise<void> {
    await harness.server.tmux('send-keys', '-t', pane, '-l', line);
    await harness.server.tmux('send-keys', '-t', pane, 'Enter');
  }

  /** Wait until the pane's foreground program is `command`. */
  const waitForCommand = (pane: string, command: string, message: string) =>
    waitFor(
      async () =>
        (
          await harness.server.tmux(
            'display',
            '-p',
            '-t',
            pane,
            '#{pane_current_command}',
          )
        ).trim() === command,
      { timeout: 20_000, message },
    );

  const routed = (id: string) =>
    waitForEvents(harness.home, 'request.routed', {
      requestId: id,
      timeout: 20_000,
    });

  it('a Python script started after the bridge gets its answer', async () => {
    const pane = await bashWithBridge();
    writeFileSync(
      file('ask.py'),
      [
        'import sys',
        `print(${JSON.stringify(REQ('p1', 'Python asks: A or B?'))}, flush=True)`,
        'line = sys.stdin.readline()',
        "print('PYTHON GOT: ' + line.strip(), flush=True)",
        'import time; time.sleep(30)',
      ].join('\n'),
    );
    await typeCommand(pane, 'python3 ask.py');
    await routed('w-p1');
    const detected = findEvents(harness.home, 'request.detected').find(
      (e) => e.requestId === 'w-p1',
    );
    expect(detected?.data?.asker).toMatchObject({
      command: 'python3 ask.py',
      shell: false,
    });
    await harness.respond('w-p1', 'take B');
    await waitFor(
      async () =>
        (await harness.server.capture(pane)).includes('PYTHON GOT: take B'),
      { timeout: 20_000, message: 'the script read the answer' },
    );
    await waitForEvents(harness.home, 'request.delivered', {
      requestId: 'w-p1',
      timeout: 20_000,
    });
  });

  it('a Node script started after the bridge gets its answer', async () => {
    const pane = await bashWithBridge();
    writeFileSync(
      file('ask.mjs'),
      [
        `console.log(${JSON.stringify(REQ('n1', 'Node asks: which port?'))});`,
        "process.stdin.once('data', (d) => console.log('NODE GOT: ' + String(d).trim()));",
      ].join('\n'),
    );
    await typeCommand(pane, `${quote(process.execPath)} ask.mjs`);
    await routed('w-n1');
    await harness.respond('w-n1', 'port 8080');
    await waitFor(
      async () =>
        (await harness.server.capture(pane)).includes('NODE GOT: port 8080'),
      { timeout: 20_000, message: 'the script read the answer' },
    );
  });

  it('an agent started in the shell gets its own preset and its answer; back at the shell, the shell preset again', async () => {
    // A preset for the scripted agent (its program is the script's name).
    writeFileSync(
      file('macs.config.json'),
      JSON.stringify({
        presets: {
          fake: {
            extends: 'generic',
            program: 'fake-agent',
            knownScreens: true,
          },
        },
      }),
    );
    const pane = await bashWithBridge();
    const script = file('steps.json');
    const record = file('agent.record.jsonl');
    writeFileSync(
      script,
      JSON.stringify([
        { print: `${REQ('a1', 'Agent asks: go ahead?')}❯ ` },
        { wait: 'submit' },
        { exit: 0 },
      ]),
    );
    await typeCommand(
      pane,
      [process.execPath, FAKE_AGENT, '--script', script, '--record', record]
        .map(quote)
        .join(' '),
    );
    await waitFor(
      () =>
        findEvents(harness.home, 'preset.changed').some(
          (e) => e.data?.from === 'shell' && e.data.to === 'fake',
        ),
      { timeout: 20_000, message: 'preset.changed shell -> fake' },
    );
    await routed('w-a1');
    await harness.respond('w-a1', 'go ahead');
    await waitFor(
      () =>
        readRecord(record).some(
          (e) => e.type === 'submit' && e.text === 'go ahead',
        ),
      { timeout: 20_000, message: 'the agent took the answer' },
    );
    // The agent exits: the pane is the shell's again, not a dead agent.
    await waitFor(
      () =>
        findEvents(harness.home, 'preset.changed').some(
          (e) => e.data?.from === 'fake' && e.data.to === 'shell',
        ),
      { timeout: 20_000, message: 'preset.changed fake -> shell' },
    );
    const status = await runMacs(['status', '--json'], {
      home: harness.home,
      socket: harness.server.socket,
    });
    const agent = (
      JSON.parse(status.stdout) as {
        agents: { name: string; preset: string }[];
      }
    ).agents.find((a) => a.name === 'w');
    expect(agent?.preset).toBe('shell');
  });

  it('the answer to a program that has ended is never typed into the shell', async () => {
    const pane = await bashWithBridge();
    // Asks, and ends before any answer can come (at a person's pace).
    writeFileSync(
      file('ask-and-go.py'),
      [
        `print(${JSON.stringify(REQ('g1', 'Asks and goes'))}, flush=True)`,
        'import os, time',
        "while not os.path.exists('answer-now'): time.sleep(0.05)",
      ].join('\n'),
    );
    await typeCommand(pane, 'python3 ask-and-go.py');
    await routed('w-g1');
    writeFileSync(file('answer-now'), '');
    await waitForCommand(pane, 'bash', 'the shell is back at its prompt');
    // Typed into the shell, this would make the witness file.
    await harness.respond('w-g1', 'touch typed-into-the-shell');
    const expired = await waitForEvents(harness.home, 'request.expired', {
      requestId: 'w-g1',
      timeout: 20_000,
    });
    expect(String(expired[0]?.data?.reason)).toMatch(
      /python3 ask-and-go\.py.*has ended/,
    );
    expect(findEvents(harness.home, 'request.delivering')).toEqual([]);
    expect(existsSync(file('typed-into-the-shell'))).toBe(false);
  });

  it('an answer that waits says why, then goes once the asker reads', async () => {
    const pane = await bashWithBridge();
    // Asks, then runs (busy, not reading) until told to stop.
    writeFileSync(
      file('ask-then-busy.py'),
      [
        'import os, sys',
        `print(${JSON.stringify(REQ('b1', 'Asks, then computes'))}, flush=True)`,
        "while not os.path.exists('stop-busy'): pass",
        'line = sys.stdin.readline()',
        "print('BUSY GOT: ' + line.strip(), flush=True)",
        'import time; time.sleep(30)',
      ].join('\n'),
    );
    await typeCommand(pane, 'python3 ask-then-busy.py');
    await routed('w-b1');
    await harness.respond('w-b1', 'finally');
    const waiting = await waitForEvents(harness.home, 'delivery.waiting', {
      requestId: 'w-b1',
      timeout: 30_000,
    });
    expect(String(waiting[0]?.data?.reason)).toContain(
      '`python3 ask-then-busy.py`, which asked, is running, not reading input',
    );
    const status = await runMacs(['status'], {
      home: harness.home,
      socket: harness.server.socket,
    });
    expect(status.stdout).toContain('w-b1 waits: `python3 ask-then-busy.py`');
    expect(findEvents(harness.home, 'request.delivering')).toEqual([]);
    writeFileSync(file('stop-busy'), '');
    await waitFor(
      async () =>
        (await harness.server.capture(pane)).includes('BUSY GOT: finally'),
      { timeout: 20_000, message: 'the script read the answer' },
    );
  });

  it('macs send still refuses a busy shell, and says at once what it waits for', async () => {
    const pane = await bashWithBridge();
    const witness = file('sent-into-sleep');
    await typeCommand(pane, 'sleep 30');
    await waitForCommand(pane, 'sleep', 'sleep runs');
    const sent = await runMacs(
      ['send', 'w', `touch ${witness}`, '--timeout', '2'],
      { home: harness.home, socket: harness.server.socket },
    );
    expect(sent.exitCode).toBe(1);
    expect(sent.stderr).toContain(
      'waiting for w: pane runs `sleep 30`, not at a prompt (up to 2 s; --timeout)',
    );
    expect(sent.stderr).toMatch(/stayed busy running sleep 30/);
    expect(
      readFileSync(file('.macs', 'events', 'w.jsonl'), 'utf8'),
    ).not.toContain('send.delivered');
    expect(existsSync(witness)).toBe(false);
  });

  // Issue 29: `macs send` to a paused agent typed at once; a pause now
  // holds a send as it holds an answer, and says so.
  it('a paused agent holds macs send like an answer, and says so', async () => {
    await bashWithBridge();
    const witness = file('sent-while-paused');
    const macs = (args: string[]) =>
      runMacs(args, { home: harness.home, socket: harness.server.socket });
    expect((await macs(['pause', 'w'])).exitCode).toBe(0);
    const held = await macs([
      'send',
      'w',
      `touch ${witness}`,
      '--timeout',
      '2',
    ]);
    expect(held.exitCode).toBe(1);
    expect(held.stderr).toContain(
      'waiting for w: deliveries to it are paused (macs resume lets them go)',
    );
    expect(held.stderr).toMatch(/stayed paused for 2s; nothing was typed/);
    expect(existsSync(witness)).toBe(false);
    expect((await macs(['resume', 'w'])).exitCode).toBe(0);
    const sent = await macs([
      'send',
      'w',
      `touch ${witness}`,
      '--timeout',
      '20',
    ]);
    expect(sent.exitCode, sent.stderr).toBe(0);
    await waitFor(() => existsSync(witness), {
      timeout: 10_000,
      message: 'the send ran once resumed',
    });
  });

  // Found while measuring the send path: with no bridge (no state file to
  // name the preset), macs send took the preset of the foreground program,
  // `sleep` -> generic, and typed into it once its screen was still.
  it('with no bridge, macs send to a shell pane running sleep 30 still refuses', async () => {
    const pane = await harness.server.spawnPane(
      ['bash', '--norc', '--noprofile'],
      { cwd: harness.home },
    );
    await harness.tagAgent(pane, 'w');
    await typeCommand(pane, 'sleep 30');
    await waitForCommand(pane, 'sleep', 'sleep runs');
    const witness = file('typed-into-sleep');
    const sent = await runMacs(
      ['send', 'w', `touch ${witness}`, '--timeout', '2'],
      { home: harness.home, socket: harness.server.socket },
    );
    expect(sent.exitCode).toBe(1);
    expect(sent.stderr).toContain('preset shell');
    expect(sent.stderr).toContain('pane runs `sleep 30`, not at a prompt');
    await harness.server.tmux('send-keys', '-t', pane, 'C-c');
    await waitForCommand(pane, 'bash', 'the shell back');
    expect(existsSync(witness)).toBe(false);
  });
});
