import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../src/state/snapshot.js';
import {
  selectNewAttention,
  snapshotSignature,
} from '../../src/state/snapshot-changes.js';
import { createHomeFixture, makeRecord } from './home-fixture.js';

const NOW = new Date('2025-03-01T12:00:00.000Z');

describe('snapshot helpers', () => {
  it('ignores the clock and updatedAt in the signature, and selects new attention', async () => {
    const fx = createHomeFixture();
    try {
      await fx.writeState('worker-1', (s) => {
        s.requests['worker-1-q-17'] = makeRecord();
      });
      const a = await buildSnapshot(fx.paths, NOW);
      const b = await buildSnapshot(fx.paths, new Date(NOW.getTime() + 5000));
      expect(snapshotSignature(a)).toBe(snapshotSignature(b));
      expect(selectNewAttention(a, new Set()).map((r) => r.id)).toEqual([
        'worker-1-q-17',
      ]);
      expect(selectNewAttention(a, new Set(['worker-1-q-17']))).toEqual([]);
    } finally {
      fx.cleanup();
    }
  });

  it('changes the signature when what a person sees changes', async () => {
    const fx = createHomeFixture();
    try {
      await fx.writeState('worker-1');
      const before = await buildSnapshot(fx.paths, NOW);
      await fx.writeState('worker-1', (s) => {
        s.requests['worker-1-q-17'] = makeRecord();
      });
      const after = await buildSnapshot(fx.paths, NOW);
      expect(snapshotSignature(after)).not.toBe(snapshotSignature(before));
    } finally {
      fx.cleanup();
    }
  });

  it('selects only requests waiting for a person', async () => {
    const fx = createHomeFixture();
    try {
      await fx.writeState('worker-1', (s) => {
        s.requests['worker-1-q-17'] = makeRecord({ backend: 'exec' });
      });
      const snapshot = await buildSnapshot(fx.paths, NOW);
      expect(selectNewAttention(snapshot, new Set())).toEqual([]);
    } finally {
      fx.cleanup();
    }
  });
});
