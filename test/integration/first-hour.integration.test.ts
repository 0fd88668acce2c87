// Issue 25, points 5, 6 and 7: what a first-time user met in a running
// session, played as a user would (`macs start --detach` on a private tmux
// server, commands run from a subfolder under LANG=C):
// - point 5: a block longer than maxBlockLines was dropped as
//   request.malformed with nobody called and nothing shown; the worker
//   waited for ever. Now a person is called (an `attention` event) and
//   `macs inbox` lists it as refused, with why.
// - point 7: `macs inbox` said "answer with: macs respond" for a request
//   already answered and held by a pause; it now says what it waits for.
// - point 6: a broken macs.config.json stopped inbox, respond, status and
//   events (exit 2) while the session ran. They now warn in one line naming
//   the file and go on with the defaults; `macs start` still refuses.
// Each check waits for the event that marks its moment (waitFor).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  FAKE_AGENT,
  findEvents,
  REQ,
  runMacs,
  waitForEvents,
} from '../helpers/macs.js';
import { cleanUpSession, testSocket } from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

describe('a running session as a first-time user meets it (issue 25)', () => {
  it('calls a person about a refused oversized request, says what an answered paused request waits for, and reads on past a broken config', async () => {
    const { home, cleanup } = makeTempHome();
    const socket = testSocket();
    onTestFinished(async () => {
      await cleanUpSession(home, socket);
      cleanup();
    });
    const sub = path.join(home, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    const macs = (args: string[]) =>
      runMacs(args, {
        home,
        socket,
        cwd: sub,
        noHomeEnv: true,
        env: { LANG: 'C' },
      });
    const longBody = Array.from(
      { length: 510 },
      (_, i) => `line ${i + 1}`,
    ).join('\n');
    const script = path.join(home, 'worker.json');
    writeFileSync(
      script,
      JSON.stringify([
        { wait: 'submit' },
        { print: REQ('big', longBody) },
        { print: REQ('p1', 'Hold me?') },
        { print: REQ('p2', 'And me?') },
        { wait: 'submit' },
      ]),
    );
    const config = path.join(home, 'macs.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        workers: [
          {
            name: 'worker-1',
            preset: 'generic',
            command: [process.execPath, FAKE_AGENT, '--script', script],
          },
        ],
      }),
    );
    const start = await macs(['start', '--detach']);
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);

    // Point 5: refused, a person called, shown in the inbox.
    const call = await waitFor(
      () =>
        findEvents(home, 'attention').find((e) => e.data?.reason === 'refused'),
      {
        timeout: 30_000,
        message: `a person called about the refused request; events: ${JSON.stringify(findEvents(home, 'request.malformed'))}`,
      },
    );
    expect(call?.data?.message).toMatch(
      /worker-1's request was refused: it ran to more than 500 lines \(maxBlockLines\)/,
    );
    expect(findEvents(home, 'request.malformed')[0]?.data).toMatchObject({
      reason: 'max-lines',
      refused: true,
    });
    await waitForEvents(home, 'request.routed', {
      requestId: 'worker-1-p2',
      timeout: 30_000,
    });
    const listed = await macs(['inbox']);
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      /refused, never raised[^\n]*\nworker-1 {2}too many lines {2}\d+s ago {2}<<CONTROLLER_REQUEST id=big>>/,
    );

    // Point 7: answered while paused is not offered for answering again.
    expect((await macs(['pause', 'worker-1'])).exitCode).toBe(0);
    const responded = await macs(['respond', 'worker-1-p1', 'go on']);
    expect(responded.exitCode, responded.stderr).toBe(0);
    await waitForEvents(home, 'request.answered', {
      requestId: 'worker-1-p1',
      timeout: 30_000,
    });
    const held = await macs(['inbox', '--agent', 'worker-1']);
    expect(held.stdout).toMatch(
      /worker-1-p1 [^\n]*\n {4}answered; held while delivery to worker-1 is paused \(macs resume worker-1\)/,
    );
    // p2 still waits for a person: no line under it says what else it waits
    // for, and the hint is there for it (in either order: both were detected
    // within the same moment).
    expect(held.stdout).toMatch(/^worker-1-p2 [^\n]*\n(?! {4})/m);
    expect(held.stdout).toContain('\nanswer with: macs respond');

    // Point 6: a broken config while the session runs.
    writeFileSync(config, '{ "workers": [');
    for (const args of [
      ['inbox'],
      ['status'],
      ['events', '--type', 'attention'],
      ['respond', 'worker-1-p2', 'fine'],
    ]) {
      const run = await macs(args);
      expect(run.exitCode, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      const warnings = run.stderr.split('\n').filter((l) => l.trim());
      expect(warnings, args.join(' ')).toEqual([
        expect.stringMatching(
          /^warning: .*macs\.config\.json: not valid JSON .*; going on with the default settings/,
        ),
      ]);
    }
    await waitForEvents(home, 'request.answered', {
      requestId: 'worker-1-p2',
      timeout: 30_000,
    });
    const again = await macs(['start', '--detach']);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('macs.config.json');
  });
});
