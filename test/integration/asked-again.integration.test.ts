// Issue 25, point 7: a shell worker printed a request block, a person
// dismissed it, and the worker printed the very same block (same id) again:
// no event at all, nobody told, the worker waiting for ever. The screen
// reader took the second copy for a redraw of the first (it knew blocks by
// their fingerprints only). Strategy: a real bash in a private tmux server
// under `macs bridge`; `cat` the same block twice around a `macs dismiss`.
// The second copy must leave a `request.duplicate` that says its answer will
// never come and call a person (`attention`), raise no request and type
// nothing. Redraws must still make nothing: the pane is resized both ways
// (bash redraws, the reader re-wraps) and a later block with a new id is the
// barrier that shows the bridge read past them (no fixed sleep).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTmuxHarness } from '../helpers/harness.js';
import { findEvents, REQ, runMacs, waitForEvents } from '../helpers/macs.js';
import { waitFor } from '../helpers/wait-for.js';

describe('a request block printed again after its request finished (issue 25)', () => {
  const harness = useTmuxHarness();
  const macs = (args: string[]) =>
    runMacs(args, { home: harness.home, socket: harness.server.socket });
  const capture = (pane: string) => harness.server.capture(pane);

  it('says so in request.duplicate and calls a person, raises nothing, types nothing; redraws make nothing', async () => {
    const { home, server } = harness;
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({ workers: [{ name: 'worker-1', preset: 'shell' }] }),
    );
    writeFileSync(path.join(home, 'q17.txt'), REQ('q-17', 'Migrate now?'));
    writeFileSync(path.join(home, 'q18.txt'), REQ('q-18', 'And then?'));
    const pane = await server.spawnPane(['bash', '--norc', '--noprofile'], {
      env: { PS1: '$ ', HISTFILE: '/dev/null' },
      cwd: home,
    });
    await harness.tagAgent(pane, 'worker-1');
    await waitFor(async () => /[$#] ?$/m.test(await capture(pane)), {
      timeout: 10_000,
      message: 'the shell shows its prompt',
    });
    const b = harness.startBridge([
      '--worker-pane',
      pane,
      '--agent',
      'worker-1',
      '--backend',
      'file',
    ]);
    await waitForEvents(home, 'bridge.started', { timeout: 15_000 });
    const type = async (command: string) => {
      await server.tmux('send-keys', '-t', pane, '-l', command);
      await server.tmux('send-keys', '-t', pane, 'Enter');
    };
    const id = 'worker-1-q-17';

    await type('cat q17.txt');
    await waitForEvents(home, 'request.routed', {
      requestId: id,
      timeout: 15_000,
      message: `q-17 routed; bridge said: ${b.output()}`,
    });
    const dismissed = await macs(['dismiss', id]);
    expect(dismissed.exitCode, dismissed.stderr).toBe(0);
    await waitForEvents(home, 'request.archived', {
      requestId: id,
      timeout: 15_000,
    });

    // The same block again: both copies stand on the screen.
    await type('cat q17.txt');
    const [duplicate] = await waitForEvents(home, 'request.duplicate', {
      requestId: id,
      timeout: 15_000,
      message: `request.duplicate for q-17; bridge said: ${b.output()}`,
    });
    expect(duplicate?.data).toMatchObject({
      reason: 'id',
      workerId: 'q-17',
      printedAgain: 2,
      unanswered: true,
      earlier: id,
      stage: 'dismissed',
      pane,
    });
    expect(duplicate?.data?.message).toMatch(
      /^worker-1 asked again under id q-17, already used by a finished request \(worker-1-q-17, dismissed\)/,
    );
    const [call] = await waitForEvents(home, 'attention', {
      requestId: id,
      count: 2,
      timeout: 15_000,
    }).then((calls) => calls.slice(1));
    expect(call?.data).toMatchObject({
      reason: 'asked-again',
      duplicate: 'id',
      earlier: id,
    });

    // Redraws: the pane narrower, then wider (bash redraws its line, the
    // reader re-wraps both copies), then a new request as a barrier.
    await server.tmux('resize-window', '-t', pane, '-x', '50', '-y', '20');
    await type('echo narrow');
    await waitFor(async () => /^narrow$/m.test(await capture(pane)), {
      timeout: 10_000,
      message: 'the shell ran echo',
    });
    await server.tmux('resize-window', '-t', pane, '-x', '150', '-y', '40');
    await type('cat q18.txt');
    await waitForEvents(home, 'request.routed', {
      requestId: 'worker-1-q-18',
      timeout: 15_000,
    });
    expect(findEvents(home, 'request.duplicate')).toHaveLength(1);
    expect(
      findEvents(home, 'request.detected').map((e) => e.requestId),
    ).toEqual([id, 'worker-1-q-18']);
    expect(findEvents(home, 'attention', id)).toHaveLength(2);
    // Nothing was typed into the shell but what the test typed.
    expect(findEvents(home, 'request.delivering')).toEqual([]);
    expect(findEvents(home, 'request.delivered')).toEqual([]);
  });
});
