// Issue 16, item 4: a worker printing 10,000 request blocks slowed the bridge
// to a crawl (every pending request in a state file rewritten on each
// change), ignored SIGTERM for over 30 s, and held up every other agent of a
// `bridge --all`. Per-agent limits: over one, a request is recorded as
// `request.limited` (once per burst) and a person is called; the other
// agents are served; a signal stops the bridge at once.
import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTmuxHarness } from '../helpers/harness.js';
import { findEvents, readRecord, REQ, waitForEvents } from '../helpers/macs.js';
import { waitFor } from '../helpers/wait-for.js';

const FLOOD = 400;
const MAX_PENDING = 20;

describe('a flooding worker (issue 16)', () => {
  const harness = useTmuxHarness();

  it(`${FLOOD} requests at once: ${MAX_PENDING} raised, the rest recorded once as limited, a person called, the other agent served, SIGTERM honoured`, async () => {
    writeFileSync(
      path.join(harness.home, 'macs.config.json'),
      JSON.stringify({ limits: { maxPendingRequests: MAX_PENDING } }),
    );
    const flood = Array.from({ length: FLOOD }, (_, i) =>
      REQ(`f${i}`, `flood ${i}`),
    ).join('');
    const go = path.join(harness.home, 'go');
    const flooder = await harness.startWorker([{ print: flood }], {
      name: 'flooder',
    });
    const calm = await harness.startWorker(
      [
        { waitFile: go },
        { print: REQ('c1', 'a calm question') },
        { wait: 'submit' },
      ],
      { name: 'calm' },
    );
    await harness.tagAgent(flooder.pane, 'flooder');
    await harness.tagAgent(calm.pane, 'calm');
    const bridge = harness.startBridge(['--all', '--backend', 'file']);
    const [limited] = await waitForEvents(harness.home, 'request.limited', {
      timeout: 60_000,
    });
    expect(limited?.data).toMatchObject({
      reason: 'pending-requests',
      limit: MAX_PENDING,
    });
    writeFileSync(go, 'go');
    await waitForEvents(harness.home, 'request.routed', {
      requestId: 'calm-c1',
      timeout: 60_000,
    });
    await harness.respond('calm-c1', 'calm answer');
    await waitFor(
      () => readRecord(calm.record).some((e) => e.type === 'submit'),
      { timeout: 30_000, message: 'the calm agent is answered' },
    );
    // The flood has been read to its end by now or soon; then the counts.
    await waitFor(
      () =>
        findEvents(harness.home, 'request.detected').filter(
          (e) => e.agent === 'flooder',
        ).length === MAX_PENDING,
      { timeout: 60_000 },
    );
    expect(
      findEvents(harness.home, 'request.limited').filter(
        (e) => e.agent === 'flooder',
      ),
    ).toHaveLength(1);
    await waitFor(
      () =>
        findEvents(harness.home, 'attention').some(
          (e) => e.agent === 'flooder' && e.data?.reason === 'limited',
        ),
      {
        timeout: 20_000,
        message: `a person called about the flood; attention: ${JSON.stringify(findEvents(harness.home, 'attention').slice(-3))} limited: ${JSON.stringify(findEvents(harness.home, 'request.limited'))} bridge: ${bridge.output().slice(-1500)}`,
      },
    );

    bridge.child.kill('SIGTERM');
    expect(await bridge.exited).toBe(0);
  });
});

// Issue 16, item 9: pane logs grew without end (52 MB after one 50 MB block).
describe('pane logs are rotated once read (issue 16)', () => {
  const harness = useTmuxHarness();

  it('keeps the log small and loses no request across rotations', async () => {
    const MAX = 32 * 1024;
    writeFileSync(
      path.join(harness.home, 'macs.config.json'),
      JSON.stringify({ paneLogMaxBytes: MAX }),
    );
    const go = path.join(harness.home, 'go');
    const steps: Record<string, unknown>[] = [{ waitFile: go }];
    for (let i = 1; i <= 8; i += 1)
      steps.push({ noise: 300 }, { print: REQ(`r${i}`, `question ${i}`) });
    const w = await harness.startWorker(steps, { name: 'w' });
    harness.startBridge(['--worker-pane', w.pane, '--agent', 'worker-1']);
    await waitForEvents(harness.home, 'bridge.started', { timeout: 20_000 });
    writeFileSync(go, 'go');
    await waitFor(
      () => findEvents(harness.home, 'request.detected').length === 8,
      { timeout: 60_000, message: 'all eight requests detected' },
    );
    await waitForEvents(harness.home, 'capture.rotated', { timeout: 30_000 });
    expect(
      findEvents(harness.home, 'request.detected').map((e) => e.requestId),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((i) => `worker-1-r${i}`));
    const log = path.join(harness.home, '.macs', 'panes', 'worker-1.log');
    expect(statSync(log).size).toBeLessThan(MAX * 4);
    await waitFor(() => !existsSync(`${log}.rotated`), { timeout: 20_000 });
  });
});
