import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setDeliveryPaused } from '../../src/state/person-controls.js';
import {
  createSnapshotReader,
  type SnapshotReader,
} from '../../src/state/snapshot.js';
import type { Snapshot } from '../../src/state/snapshot-schema.js';
import {
  createSnapshotFeed,
  type SnapshotFeed,
} from '../../src/state/snapshot-feed.js';
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

  // Regression: the inbox was not watched. A request another backend hands
  // to a person (exec failed: its meta lands in inbox/) changes no state
  // file, so the feed went on showing it as not waiting for anyone until the
  // next full read, a minute later. Strategy: no backstop in the test; only
  // the inbox file changes.
  it('announces a request handed to the inbox (inbox/ is watched)', async () => {
    await fx.writeState('worker-1', (s) => {
      s.requests['worker-1-q-17'] = makeRecord({ backend: 'exec' });
    });
    feed = createSnapshotFeed({
      paths: fx.paths,
      throttleMs: 10,
      backstopMs: 600_000,
    });
    const first = await feed.start();
    expect(first.requests[0]?.waitingForPerson).toBe(false);
    fx.writeInboxMeta('worker-1-q-17', { id: 'worker-1-q-17' });
    await waitFor(() => feed?.current()?.requests[0]?.waitingForPerson, {
      message: 'the request waits for a person',
    });
  });

  // Regression: a read that failed logged a warning to .macs/macs.log, in
  // the watched .macs/ folder, and that write caused the next read: a home
  // that could not be read was read (and logged about) every 150 ms.
  // Strategy: a reader that always fails, an onError that writes the log as
  // the real one does; one change must cause one failed read, not a stream
  // of them.
  it('does not read again for its own log lines in .macs/macs.log', async () => {
    await fx.writeState('worker-1');
    let failures = 0;
    const inner = createSnapshotReader(fx.paths);
    let broken = false;
    const reader: SnapshotReader = {
      read: (at) =>
        broken ? Promise.reject(new Error('EACCES')) : inner.read(at),
      liveness: () => inner.liveness(),
    };
    feed = createSnapshotFeed({
      paths: fx.paths,
      reader,
      throttleMs: 10,
      backstopMs: 600_000,
      onError: () => {
        failures += 1;
        appendFileSync(fx.paths.logFile, '{"msg":"status read failed"}\n');
      },
    });
    await feed.start();
    broken = true;
    await fx.writeState('worker-1', (s) => {
      s.paused = true;
    });
    await waitFor(() => failures >= 1, { message: 'the failed read' });
    // A stream of reads would have made dozens by now; one change, one read.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(failures).toBe(1);
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

  it('between full reads only checks which bridges are alive, and reads again when one dies', async () => {
    // A process standing in for the bridge: its pid in the agent's lock file.
    const bridge = spawn(
      process.execPath,
      ['-e', 'setInterval(() => {}, 1e6)'],
      {
        stdio: 'ignore',
      },
    );
    const exited = new Promise((resolve) => bridge.once('exit', resolve));
    try {
      await fx.writeState('worker-1');
      writeFileSync(
        path.join(fx.paths.state, 'worker-1.lock'),
        String(bridge.pid),
      );
      const inner = createSnapshotReader(fx.paths);
      let reads = 0;
      let checks = 0;
      const reader: SnapshotReader = {
        read: (at) => {
          reads += 1;
          return inner.read(at);
        },
        liveness: () => {
          checks += 1;
          return inner.liveness();
        },
      };
      feed = createSnapshotFeed({
        paths: fx.paths,
        reader,
        throttleMs: 10,
        backstopMs: 20,
        fullBackstopMs: 600_000,
      });
      const first = await feed.start();
      expect(first.agents[0]?.bridge).toEqual({
        running: true,
        pid: bridge.pid,
      });
      const readsAtStart = reads;
      await waitFor(() => checks >= 10, { message: 'liveness checks' });
      // Nothing changed: checked often, never read in full again.
      expect(reads).toBe(readsAtStart);

      // Killed outright: no file changes, the liveness check sees it.
      bridge.kill('SIGKILL');
      await exited;
      await waitFor(
        () => feed?.current()?.agents[0]?.bridge.running === false,
        {
          message: 'the dead bridge is shown',
        },
      );
      expect(reads).toBeGreaterThan(readsAtStart);
    } finally {
      bridge.kill('SIGKILL');
    }
  });
});
