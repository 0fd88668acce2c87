import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setDeliveryPaused } from '../../src/state/control.js';
import type { Snapshot } from '../../src/state/snapshot.js';
import {
  createSnapshotFeed,
  type SnapshotFeed,
} from '../../src/state/watch.js';
import { waitFor } from '../helpers/wait-for.js';
import { createHomeFixture, makeRecord } from './home-fixture.js';

describe('createSnapshotFeed', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  let feed: SnapshotFeed | undefined;
  beforeEach(() => {
    fx = createHomeFixture();
  });
  afterEach(() => {
    feed?.stop();
    fx.cleanup();
  });

  it('announces changes to state files, events and control files, found by watching (no fast poll)', async () => {
    const seen: Snapshot[] = [];
    // A backstop far beyond the test: only change notifications can explain updates.
    feed = createSnapshotFeed({
      paths: fx.paths,
      throttleMs: 20,
      backstopMs: 600_000,
    });
    const first = await feed.start();
    expect(first.agents).toEqual([]);
    feed.subscribe((s) => seen.push(s));

    // The folders do not exist yet: the feed picks them up when they appear.
    await fx.writeState('worker-1');
    await waitFor(() => feed?.current()?.agents.length === 1, {
      message: 'agent appears',
    });

    await fx.writeState('worker-1', (s) => {
      s.requests['worker-1-q-17'] = makeRecord();
    });
    await waitFor(() => feed?.current()?.requests.length === 1, {
      message: 'request appears',
    });

    await setDeliveryPaused(fx.paths, 'worker-1', true);
    await waitFor(() => feed?.current()?.agents[0]?.paused, {
      message: 'pause appears',
    });

    fx.writeEvents('worker-1', [
      JSON.stringify({
        ts: new Date().toISOString(),
        agent: 'worker-1',
        type: 'bridge.started',
      }),
    ]);
    await waitFor(() => feed?.current()?.events.length === 1, {
      message: 'event appears',
    });
    expect(seen.length).toBeGreaterThanOrEqual(4);
  });

  it('stays quiet when nothing changed', async () => {
    await fx.writeState('worker-1');
    feed = createSnapshotFeed({
      paths: fx.paths,
      throttleMs: 10,
      backstopMs: 600_000,
    });
    await feed.start();
    let calls = 0;
    feed.subscribe(() => (calls += 1));
    await feed.refresh();
    await feed.refresh();
    expect(calls).toBe(0);
  });
});
