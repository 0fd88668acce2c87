// Issue 17, items 5 and 11: nothing is typed into a pane that is not
// waiting for it. A known agent's screen that no rule reads (a sign-in menu,
// an overlay) is never typed into, and an agent that exits back to the shell
// it was started from is dead: the shell's prompt reads like an idle agent,
// and an answer typed there would run as a command.
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

describe('a known agent is typed into only when it waits for input (issue 17)', () => {
  const harness = useTmuxHarness({ gracefulStop: true });
  const file = (...parts: string[]) => path.join(harness.home, ...parts);
  const quote = (argv: string[]) =>
    argv.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  const submits = (record: string) =>
    readRecord(record)
      .filter((e) => e.type === 'submit')
      .map((e) => e.text ?? '');

  it('never types into a screen a known preset cannot read (a sign-in menu)', async () => {
    const out = file('menu.out');
    const pane = await harness.server.spawnPane([
      'sh',
      '-c',
      `printf 'Welcome! Select a sign-in method:\\n\\n  1. Sign in with ChatGPT\\n  2. Provide your own API key\\n\\n'; cat > '${out}'`,
    ]);
    await harness.tagAgent(pane, 'w');
    const sent = await runMacs(
      ['send', 'w', '2', '--preset', 'codex', '--timeout', '2'],
      { home: harness.home, socket: harness.server.socket },
    );
    expect(sent.exitCode).toBe(1);
    expect(sent.stderr).toMatch(/unknown/);
    expect(existsSync(out) ? readFileSync(out, 'utf8') : '').toBe('');
  });

  it('an agent that exits to its shell is dead: its answer is never typed into the shell, nor into the agent started there again', async () => {
    const witness = file('typed-into-the-shell');
    const script = file('steps.json');
    writeFileSync(
      script,
      JSON.stringify([
        // Each request is followed by the agent's prompt: its idle screen.
        { print: `${REQ('q1', 'first question')}❯ ` },
        { wait: 'submit' },
        { print: `${REQ('q2', 'second question')}❯ ` },
        { exit: 0 },
      ]),
    );
    const record = file('first.record.jsonl');
    const agent = [
      process.execPath,
      FAKE_AGENT,
      '--script',
      script,
      '--record',
      record,
    ];
    const pane = await harness.server.spawnPane([
      'bash',
      '--norc',
      '--noprofile',
    ]);
    await harness.server.tmux('send-keys', '-t', pane, '-l', quote(agent));
    await harness.server.tmux('send-keys', '-t', pane, 'Enter');
    // A known agent's preset (its screens all read): the fake agent's.
    writeFileSync(
      file('macs.config.json'),
      JSON.stringify({
        presets: { known: { extends: 'generic', knownScreens: true } },
      }),
    );
    harness.startBridge([
      '--worker-pane',
      pane,
      '--agent',
      'w',
      '--preset',
      'known',
    ]);
    await waitForEvents(harness.home, 'request.routed', {
      requestId: 'w-q1',
      timeout: 20_000,
    });
    await harness.respond('w-q1', 'carry on');
    await waitFor(() => submits(record).length === 1, { timeout: 20_000 });

    // The agent asks again and exits to bash before the answer comes.
    await waitForEvents(harness.home, 'request.routed', {
      requestId: 'w-q2',
      timeout: 20_000,
    });
    await waitFor(
      () =>
        findEvents(harness.home, 'state.changed').some(
          (e) => e.data?.to === 'dead' && e.data?.exitedTo === 'bash',
        ),
      { timeout: 20_000, message: 'dead: exited to bash' },
    );
    await harness.respond('w-q2', `touch '${witness}'`);
    await waitForEvents(harness.home, 'request.answered', {
      requestId: 'w-q2',
      timeout: 20_000,
    });

    // Started again in the same shell: a new program, which asked nothing.
    const again = file('again.record.jsonl');
    writeFileSync(script, JSON.stringify([{ busy: 600_000 }]));
    await harness.server.tmux(
      'send-keys',
      '-t',
      pane,
      '-l',
      quote([
        process.execPath,
        FAKE_AGENT,
        '--script',
        script,
        '--record',
        again,
      ]),
    );
    await harness.server.tmux('send-keys', '-t', pane, 'Enter');
    const [ended] = await waitForEvents(harness.home, 'request.expired', {
      requestId: 'w-q2',
      timeout: 20_000,
    });
    expect(String(ended?.data?.reason)).toContain('exited to its shell');
    expect(existsSync(witness)).toBe(false);
    expect(submits(again)).toEqual([]);
    expect(submits(record)).toEqual(['carry on']);
  });
});
