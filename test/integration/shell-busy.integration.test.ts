// Issue 25, point 3: `macs send` typed into a shell worker running `sleep 20`
// and reported success ("the composer emptied"); the text ran when sleep
// ended. A shell's screen shows no sign of a running command, so the wait
// before typing (typist/wait-typeable.ts) now also asks what runs in the
// pane's foreground (tmux's pane_current_command and the terminal's
// foreground process group). Strategy: a real bash in a private tmux server,
// configured as a `shell` worker; while it runs a command, `macs send`
// must time out with exit 1 and the pane must show nothing typed; once the
// shell is back at its prompt the same send goes through. A nested
// interactive bash at its prompt takes commands; a nested `bash -c` running
// a command does not. The bridge's delivery of an answer takes the same
// wait: an answer to a busy shell waits until the command ended.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTmuxHarness } from '../helpers/harness.js';
import { REQ, runMacs, waitForEvents } from '../helpers/macs.js';
import { waitFor } from '../helpers/wait-for.js';

describe('never typing into a busy shell (issue 25, point 3)', () => {
  const harness = useTmuxHarness();
  const macs = (args: string[]) =>
    runMacs(args, { home: harness.home, socket: harness.server.socket });
  const capture = (pane: string) => harness.server.capture(pane);
  const currentCommand = async (pane: string) =>
    (
      await harness.server.tmux(
        'display-message',
        '-p',
        '-t',
        pane,
        '#{pane_current_command}',
      )
    ).trim();

  /** A bash with a plain prompt, as the `shell` worker `worker-2`. */
  async function startShell(): Promise<string> {
    writeFileSync(
      path.join(harness.home, 'macs.config.json'),
      JSON.stringify({ workers: [{ name: 'worker-2', preset: 'shell' }] }),
    );
    const pane = await harness.server.spawnPane(
      ['bash', '--norc', '--noprofile'],
      { env: { PS1: '$ ', HISTFILE: '/dev/null' } },
    );
    await harness.tagAgent(pane, 'worker-2');
    await waitFor(async () => /[$#] ?$/m.test(await capture(pane)), {
      timeout: 10_000,
      message: 'the shell shows its prompt',
    });
    return pane;
  }

  /** End the `sleep` the pane's shell runs in its foreground. */
  async function endSleep(pane: string) {
    const shell = (
      await harness.server.tmux(
        'display-message',
        '-p',
        '-t',
        pane,
        '#{pane_pid}',
      )
    ).trim();
    const children = readFileSync(
      `/proc/${shell}/task/${shell}/children`,
      'utf8',
    )
      .trim()
      .split(/\s+/)
      .map(Number)
      .filter(
        (pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sleep',
      );
    expect(children).toHaveLength(1);
    process.kill(children[0] ?? 0, 'SIGTERM');
  }

  /** Type a command as a person would, and wait until it runs. */
  async function run(pane: string, command: string, runs: string) {
    await harness.server.tmux('send-keys', '-t', pane, '-l', command);
    await harness.server.tmux('send-keys', '-t', pane, 'Enter');
    await waitFor(async () => (await currentCommand(pane)) === runs, {
      timeout: 10_000,
      message: `the pane runs ${runs}`,
    });
  }

  it('times out with exit 1 and types nothing while the shell runs sleep, then sends once it is back', async () => {
    const pane = await startShell();
    // Sleeps until the test ends it: no timing decides the verdict. One
    // `sleep` (not a loop of short ones), so every reading names it.
    await run(pane, 'sleep 600; echo ended', 'sleep');
    const busy = await macs([
      'send',
      'worker-2',
      'echo typed-while-busy',
      '--timeout',
      '3',
    ]);
    expect(busy.exitCode, busy.stdout).toBe(1);
    expect(busy.stderr).toMatch(/nothing was typed/);
    expect(busy.stderr).toMatch(/running sleep/);
    expect(await capture(pane)).not.toContain('typed-while-busy');

    await endSleep(pane);
    await waitFor(async () => /^ended$/m.test(await capture(pane)), {
      timeout: 10_000,
      message: 'the loop ended',
    });
    // Nothing was left in the line editor to run after the command.
    expect(await capture(pane)).not.toContain('typed-while-busy');
    const idle = await macs(['send', 'worker-2', 'echo sent-$((6*7))']);
    expect(idle.exitCode, idle.stderr).toBe(0);
    await waitFor(async () => (await capture(pane)).includes('sent-42'), {
      timeout: 10_000,
      message: 'the command ran',
    });
  });

  it('types into a nested interactive bash at its prompt, never into a nested bash -c running a command', async () => {
    const pane = await startShell();
    await run(pane, 'bash --norc --noprofile', 'bash');
    const nested = await macs(['send', 'worker-2', 'echo nested-$((1+1))']);
    expect(nested.exitCode, nested.stderr).toBe(0);
    await waitFor(async () => (await capture(pane)).includes('nested-2'), {
      timeout: 10_000,
      message: 'the nested shell ran it',
    });

    const go = path.join(harness.home, 'go-nested');
    // `bash -c` with a builtin loop: tmux names it `bash`, like a prompt.
    await harness.server.tmux(
      'send-keys',
      '-t',
      pane,
      '-l',
      `bash -c 'while [ ! -e ${go} ]; do read -t 0.2 x </dev/zero 2>/dev/null; :; done; echo script-ended'`,
    );
    await harness.server.tmux('send-keys', '-t', pane, 'Enter');
    await waitFor(async () => (await capture(pane)).includes("script-ended'"), {
      timeout: 10_000,
      message: 'the command line is shown',
    });
    const busy = await macs([
      'send',
      'worker-2',
      'echo into-script',
      '--timeout',
      '2',
    ]);
    expect(busy.exitCode, busy.stdout).toBe(1);
    expect(busy.stderr).toMatch(/nothing was typed/);
    writeFileSync(go, '');
    await waitFor(async () => /^script-ended$/m.test(await capture(pane)), {
      timeout: 10_000,
      message: 'the script ended',
    });
    expect(await capture(pane)).not.toContain('into-script');
  });

  // Found when the suite ran on a loaded machine: a shell looping over short
  // commands (`while …; do sleep 0.2; done`) is itself in the foreground for
  // a moment between two of them, and one reading there took it for a shell
  // at its prompt and typed the answer into the loop. Strategy: a loop whose
  // shell counts for a while between two sleeps (builtins only, so the shell
  // itself is the foreground program then); a send waiting 3 s
  // must still time out having typed nothing (the shell must be seen blocked
  // on input, not running or waiting for a command, on every reading for a
  // while before anything is typed).
  it('never types into a shell looping over short commands, between two of them', async () => {
    const pane = await startShell();
    const go = path.join(harness.home, 'go-loop');
    await run(
      pane,
      `while [ ! -e ${go} ]; do sleep 0.1; i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; done; echo loop-ended`,
      'sleep',
    );
    const busy = await macs([
      'send',
      'worker-2',
      'echo typed-into-loop',
      '--timeout',
      '3',
    ]);
    expect(busy.exitCode, busy.stdout + busy.stderr).toBe(1);
    expect(await capture(pane)).not.toContain('typed-into-loop');
    writeFileSync(go, '');
    await waitFor(async () => (await capture(pane)).includes('loop-ended'), {
      timeout: 10_000,
      message: 'the loop ended',
    });
    const sent = await macs(['send', 'worker-2', 'echo after-loop']);
    expect(sent.exitCode, sent.stderr).toBe(0);
    await waitFor(async () => /^after-loop$/m.test(await capture(pane)), {
      timeout: 10_000,
      message: 'the send ran once the loop ended',
    });
  });

  it("the bridge holds an answer for a busy shell until the shell's prompt is back", async () => {
    const pane = await startShell();
    const go = path.join(harness.home, 'go-bridge');
    const bridge = harness.startBridge(['--all', '--backend', 'file']);
    await harness.server.tmux(
      'send-keys',
      '-t',
      pane,
      '-l',
      `printf '${REQ('b1', 'May I go on?').replaceAll('\n', '\\n')}'`,
    );
    await harness.server.tmux('send-keys', '-t', pane, 'Enter');
    await waitForEvents(harness.home, 'request.routed', {
      requestId: 'worker-2-b1',
      timeout: 20_000,
    });
    await run(
      pane,
      `while [ ! -e ${go} ]; do sleep 0.2; done; echo bridge-ended`,
      'sleep',
    );
    await harness.respond('worker-2-b1', 'echo answer-$((2*3))');
    // The answer is taken and waits: the moment it would have been typed.
    await waitForEvents(harness.home, 'request.answered', {
      requestId: 'worker-2-b1',
      timeout: 20_000,
    });
    await waitFor(async () => (await currentCommand(pane)) === 'sleep', {
      timeout: 5_000,
      message: 'still sleeping',
    });
    expect(await capture(pane)).not.toContain('answer-');
    writeFileSync(go, '');
    await waitFor(async () => (await capture(pane)).includes('answer-6'), {
      timeout: 20_000,
      message: `the answer ran after the loop; bridge said: ${bridge.output()}`,
    });
    const screen = await capture(pane);
    expect(screen.indexOf('bridge-ended')).toBeLessThan(
      screen.indexOf('answer-6'),
    );
  });
});
