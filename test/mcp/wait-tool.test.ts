import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerWaitTool } from '../../src/mcp/wait-tool.js';
import {
  createSnapshotReader,
  type SnapshotReader,
} from '../../src/state/snapshot.js';
import {
  createSnapshotFeed,
  shareSnapshotFeed,
} from '../../src/state/snapshot-feed.js';
import { createHomeFixture, makeRecord } from '../state/home-fixture.js';
import { waitFor } from '../helpers/wait-for.js';
import { connectTools, makeToolContext, textOf } from './harness.js';

// wait_for_request follows the home's change feed (the status view's) for a
// new request waiting for an answer.
describe('wait_for_request', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  let conn: Awaited<ReturnType<typeof connectTools>>;
  beforeEach(async () => {
    fx = createHomeFixture();
    const context = makeToolContext(fx);
    conn = await connectTools(fx, (tool) => registerWaitTool(tool, context));
  });
  afterEach(async () => {
    await conn.close();
    fx.cleanup();
  });

  /** A request of `agent` waiting in the inbox. */
  async function ask(
    agent: string,
    workerId: string,
    type = 'question',
  ): Promise<void> {
    const id = `${agent}-${workerId}`;
    await fx.writeState(agent, (s) => {
      s.requests[id] = makeRecord({ id, agent, workerId, type });
    });
    fx.writeInboxMeta(id, { id });
  }

  it('returns a request already waiting at once with include_pending', async () => {
    await ask('worker-1', 'q-1');
    const found = await conn.call('wait_for_request', {
      include_pending: true,
    });
    expect(found.structuredContent).toMatchObject({
      timedOut: false,
      request: {
        id: 'worker-1-q-1',
        agent: 'worker-1',
        waitingForAnswer: true,
      },
    });
    expect(textOf(found)).toMatch(/^request worker-1-q-1 from worker-1/);
    expect((await conn.calls())[0]).toMatchObject({
      agent: 'worker-1',
      requestId: 'worker-1-q-1',
      data: { tool: 'wait_for_request', ok: true },
    });
  });

  it('waits past the requests already waiting for a new one of the agent and type asked', async () => {
    await ask('worker-1', 'a-1', 'approval');
    let progress = 0;
    const waiting = conn.call(
      'wait_for_request',
      { agent: 'worker-1', type: 'approval', timeout_sec: 30 },
      { onprogress: () => (progress += 1) },
    );
    // Its first progress comes once it has noted what waits already; then
    // another agent's approval, a question, and the one it waits for.
    await waitFor(() => progress > 0, { message: 'progress: waiting' });
    await ask('worker-2', 'a-2', 'approval');
    await ask('worker-1', 'q-2');
    await ask('worker-1', 'a-3', 'approval');
    const found = await waiting;
    expect(found.structuredContent).toMatchObject({
      timedOut: false,
      request: { id: 'worker-1-a-3', type: 'approval' },
    });
  });

  it('returns request null at its deadline, filed under the agent it waited for', async () => {
    await ask('worker-1', 'q-1');
    const started = Date.now();
    const none = await conn.call('wait_for_request', {
      agent: 'worker-1',
      timeout_sec: 1,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(none.isError).toBeFalsy();
    expect(none.structuredContent).toEqual({ request: null, timedOut: true });
    expect(textOf(none)).toBe(
      'no new request within 1s; call wait_for_request again to keep waiting',
    );
    expect((await conn.calls())[0]).toMatchObject({
      agent: 'worker-1',
      data: { tool: 'wait_for_request', ok: true, timedOut: true },
    });
  });

  it('says it is waiting (with a progress token) and stops when the client cancels', async () => {
    const cancel = new AbortController();
    let progress = 0;
    const pending = conn.call(
      'wait_for_request',
      { timeout_sec: 600 },
      { signal: cancel.signal, onprogress: () => (progress += 1) },
    );
    pending.catch(() => undefined);
    await waitFor(() => progress > 0, { message: 'progress: waiting' });
    cancel.abort('the test cancels');
    await expect(pending).rejects.toThrow();
    await waitFor(
      async () =>
        (await conn.calls()).find(
          (e) =>
            e.data?.ok === false && e.data.error === 'cancelled by the client',
        ),
      { message: 'the cancelled call is recorded' },
    );
  });

  // Regression (issue 22, "the idle cost"): wait_for_request read the whole
  // home every 250 ms for as long as it waited, so a controller that always
  // waits kept `macs mcp` busy. Strategy: count the full reads of the feed
  // the wait follows during a wait in which nothing changes, then check
  // that the feed stops when the wait ends.
  it('reads the home once for a quiet wait, and stops following it after', async () => {
    let reads = 0;
    let feeds = 0;
    let stopped = 0;
    const inner = createSnapshotReader(fx.paths, { eventLimit: 1 });
    const reader: SnapshotReader = {
      read: (at) => {
        reads += 1;
        return inner.read(at);
      },
      liveness: () => inner.liveness(),
    };
    const context = makeToolContext(fx, {
      snapshots: shareSnapshotFeed(() => {
        feeds += 1;
        const feed = createSnapshotFeed({ paths: fx.paths, reader });
        return {
          ...feed,
          stop: () => {
            stopped += 1;
            feed.stop();
          },
        };
      }),
    });
    const quiet = await connectTools(fx, (tool) =>
      registerWaitTool(tool, context),
    );
    try {
      await ask('worker-1', 'q-1');
      const [a, b] = await Promise.all([
        quiet.call('wait_for_request', { timeout_sec: 1 }),
        quiet.call('wait_for_request', { timeout_sec: 1 }),
      ]);
      expect(a.structuredContent).toEqual({ request: null, timedOut: true });
      expect(b.structuredContent).toEqual({ request: null, timedOut: true });
      // Two waits, one feed, one read; stopped once both ended.
      expect(feeds).toBe(1);
      expect(reads).toBe(1);
      expect(stopped).toBe(1);
    } finally {
      await quiet.close();
    }
  });
});
