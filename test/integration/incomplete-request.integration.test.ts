// Issue 29, part 2: a request block with no end marker was silent. A worker
// printed `<<CONTROLLER_REQUEST id=x type=question>>` and a body, never the
// end marker, and waited: nothing in the inbox, no event, no row, nobody
// called, until maxBlockLines. Strategy: a real tmux pane runs a fake
// worker script that prints a start marker and a body and then waits (for a
// file the test writes, so no timing decides anything); the bridge runs on
// it with the file backend. Once the pane has been quiet (here 1 s,
// `MACS_INCOMPLETE_AFTER_SEC`) the bridge must record `request.incomplete`
// with the first lines, call a person (`attention`, reason `incomplete`),
// and `macs inbox`, `inbox --json`, `status` and `status --json` must show
// it as incomplete with what the worker must do; `macs respond` on the id
// it will have says why it cannot be answered. When the end marker comes
// later, the request is detected once, as usual, and the notice cleared.
// A second case: a bash worker whose prompt comes back under an open block
// (the agent's screen reads idle) is shown as incomplete with the quiet
// timer off, so the prompt alone decides.
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTmuxHarness } from '../helpers/harness.js';
import { findEvents, runMacs, waitForEvents } from '../helpers/macs.js';
import { waitFor } from '../helpers/wait-for.js';

const END = '<<CONTROLLER_REQUEST_END>>';

describe('a request block without its end marker (issue 29)', () => {
  const harness = useTmuxHarness();
  const macs = (args: string[]) =>
    runMacs(args, { home: harness.home, socket: harness.server.socket });

  /**
   * A worker that asks once `start` exists (the bridge is up) without the
   * end marker, then prints the end marker once `go` exists.
   */
  function writeAsker(start: string, go: string): string {
    const script = path.join(harness.home, 'ask.sh');
    writeFileSync(
      script,
      [
        '#!/bin/sh',
        `while [ ! -e '${start}' ]; do sleep 0.1; done`,
        "printf 'working on the cache\\n'",
        "printf '<<CONTROLLER_REQUEST id=x type=question>>\\n'",
        "printf 'Should I drop the cache table?\\n'",
        "printf '(a) yes (b) no\\n'",
        `while [ ! -e '${go}' ]; do sleep 0.1; done`,
        `printf '${END}\\n'`,
        'read answer',
        'echo "got: $answer"',
        'sleep 600',
        '',
      ].join('\n'),
    );
    chmodSync(script, 0o755);
    return script;
  }

  it('shows a quiet open block as incomplete, calls a person, and detects it once when the end comes', async () => {
    const start = path.join(harness.home, 'start');
    const go = path.join(harness.home, 'go');
    const pane = await harness.server.spawnPane(['sh', writeAsker(start, go)]);
    const b = harness.startBridge(
      ['--worker-pane', pane, '--agent', 'worker-1', '--backend', 'file'],
      { MACS_INCOMPLETE_AFTER_SEC: '1' },
    );
    await waitForEvents(harness.home, 'bridge.started', {
      timeout: 15_000,
      message: `bridge.started; bridge said: ${b.output()}`,
    });
    writeFileSync(start, '');
    await waitFor(
      async () =>
        (await harness.server.capture(pane)).includes('(a) yes (b) no'),
      { timeout: 10_000, message: 'the worker asked' },
    );
    const [incomplete] = await waitForEvents(
      harness.home,
      'request.incomplete',
      {
        timeout: 20_000,
        message: `request.incomplete; bridge said: ${b.output()}`,
      },
    );
    expect(incomplete?.agent).toBe('worker-1');
    expect(incomplete?.data).toMatchObject({
      reason: 'quiet',
      firstLine: '<<CONTROLLER_REQUEST id=x type=question>>',
      head: ['Should I drop the cache table?', '(a) yes (b) no'],
      willBe: 'worker-1-x',
    });
    expect(String(incomplete?.data?.message)).toContain(END);

    const attention = await waitForEvents(harness.home, 'attention', {
      timeout: 10_000,
    });
    expect(attention.map((e) => e.data?.reason)).toContain('incomplete');

    // No request, no inbox file: it is not one yet.
    expect(findEvents(harness.home, 'request.detected')).toEqual([]);
    expect(existsSync(path.join(harness.home, 'inbox', 'worker-1-x.txt'))).toBe(
      false,
    );

    const inbox = await macs(['inbox']);
    expect(inbox.exitCode, inbox.stderr).toBe(0);
    expect(inbox.stdout).toContain('incomplete, not raised yet');
    expect(inbox.stdout).toContain(END);
    expect(inbox.stdout).toMatch(/worker-1 {2}incomplete .*will be worker-1-x/);
    expect(inbox.stdout).toContain('Should I drop the cache table?');

    const inboxJson = JSON.parse((await macs(['inbox', '--json'])).stdout) as {
      stage: string;
      agent: string;
      head?: string[];
      willBe?: string;
    }[];
    expect(inboxJson).toEqual([
      expect.objectContaining({
        id: null,
        agent: 'worker-1',
        stage: 'incomplete',
        willBe: 'worker-1-x',
        head: ['Should I drop the cache table?', '(a) yes (b) no'],
      }),
    ]);

    const status = await macs(['status']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toContain('incomplete, not raised yet');
    expect(status.stdout).toMatch(
      /worker-1 {2}incomplete {2}will be worker-1-x {2}Should I drop the cache table\?/,
    );
    const snapshot = JSON.parse((await macs(['status', '--json'])).stdout) as {
      incomplete: unknown[];
    };
    expect(snapshot.incomplete).toEqual([
      expect.objectContaining({
        agent: 'worker-1',
        reason: 'quiet',
        requestId: 'worker-1-x',
        head: ['Should I drop the cache table?', '(a) yes (b) no'],
      }),
    ]);

    const respond = await macs(['respond', 'worker-1-x', 'yes']);
    expect(respond.exitCode).toBe(1);
    expect(respond.stderr).toContain("'worker-1-x' is an incomplete request");
    expect(respond.stderr).toContain(END);
    expect(
      existsSync(path.join(harness.home, 'outbox', 'worker-1-x.txt')),
    ).toBe(false);

    // The end marker comes: the request is detected once and the notice goes.
    writeFileSync(go, '');
    await waitForEvents(harness.home, 'request.detected', {
      requestId: 'worker-1-x',
      timeout: 15_000,
    });
    const [cleared] = await waitForEvents(
      harness.home,
      'request.incomplete-cleared',
      { timeout: 10_000 },
    );
    expect(cleared?.data?.reason).toBe('completed');
    await waitFor(
      async () => {
        const listed = JSON.parse((await macs(['inbox', '--json'])).stdout) as {
          id: string | null;
          stage: string;
        }[];
        return listed.length === 1 && listed[0]?.stage === 'routed'
          ? listed
          : undefined;
      },
      { timeout: 15_000, message: 'only the request in the inbox' },
    );
    const after = JSON.parse((await macs(['status', '--json'])).stdout) as {
      incomplete: unknown[];
    };
    expect(after.incomplete).toEqual([]);
    expect(findEvents(harness.home, 'request.detected')).toHaveLength(1);
    expect(findEvents(harness.home, 'request.duplicate')).toEqual([]);
    expect(findEvents(harness.home, 'request.incomplete')).toHaveLength(1);
  });

  it("shows a block cut by the agent's prompt as incomplete, the quiet timer off", async () => {
    writeFileSync(
      path.join(harness.home, 'macs.config.json'),
      JSON.stringify({ workers: [{ name: 'worker-2', preset: 'shell' }] }),
    );
    const pane = await harness.server.spawnPane(
      ['bash', '--norc', '--noprofile'],
      { env: { PS1: '$ ', HISTFILE: '/dev/null' } },
    );
    await harness.tagAgent(pane, 'worker-2');
    await waitFor(
      async () => /[$#] ?$/m.test(await harness.server.capture(pane)),
      {
        timeout: 10_000,
        message: 'the shell shows its prompt',
      },
    );
    const script = path.join(harness.home, 'half.sh');
    writeFileSync(
      script,
      "printf '<<CONTROLLER_REQUEST id=p>>\\nWhich port should I use?\\n'\n",
    );
    const b = harness.startBridge(
      ['--worker-pane', pane, '--agent', 'worker-2', '--backend', 'file'],
      { MACS_INCOMPLETE_AFTER_SEC: '0' },
    );
    await waitForEvents(harness.home, 'bridge.started', {
      timeout: 15_000,
      message: `bridge.started; bridge said: ${b.output()}`,
    });
    await harness.server.tmux('send-keys', '-t', pane, '-l', `sh ${script}`);
    await harness.server.tmux('send-keys', '-t', pane, 'Enter');
    const [incomplete] = await waitForEvents(
      harness.home,
      'request.incomplete',
      {
        timeout: 20_000,
        message: `request.incomplete; bridge said: ${b.output()}`,
      },
    );
    expect(incomplete?.data).toMatchObject({
      reason: 'prompt',
      head: ['Which port should I use?'],
      willBe: 'worker-2-p',
    });
    const snapshot = JSON.parse((await macs(['status', '--json'])).stdout) as {
      incomplete: unknown[];
    };
    expect(snapshot.incomplete).toEqual([
      expect.objectContaining({ agent: 'worker-2', reason: 'prompt' }),
    ]);
    expect(findEvents(harness.home, 'request.detected')).toEqual([]);
  });
});
