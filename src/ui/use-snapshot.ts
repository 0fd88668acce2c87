import { useStdout } from 'ink';
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import type { Snapshot } from '../state/snapshot-schema.js';
import type { SnapshotSource } from '../operations/view-intents.js';

/** The newest snapshot; re-renders when the source says something changed. */
export function useSnapshot(source: SnapshotSource): Snapshot | undefined {
  const subscribe = useCallback(
    (listener: () => void) => source.subscribe(listener),
    [source],
  );
  const current = useCallback(() => source.current(), [source]);
  return useSyncExternalStore(subscribe, current);
}

/**
 * The clock for ages. It moves in whole seconds, so ages that started in
 * the same second change together, and it does not tick at a fixed rate:
 * `delayFor(now)` says when the next age on screen changes (undefined: no
 * age shown), and the clock moves then. Ages are whole minutes, so an idle
 * view draws nothing in its first minute and about once a minute after.
 * A fixed `now` (tests) never moves.
 */
export function useNow(
  fixed: number | undefined,
  delayFor: (now: number) => number | undefined,
): number {
  // The state only makes the view draw again; the time is read when drawing.
  const [tick, setTick] = useState(0);
  const now = fixed ?? wholeSecond(Date.now());
  const delay = fixed === undefined ? delayFor(now) : undefined;
  useEffect(() => {
    if (delay === undefined) return;
    // The next whole second at or after the change, a little late rather
    // than early: the age has changed by then.
    const at = Math.ceil((now + delay) / 1000) * 1000;
    const timer = setTimeout(
      () => setTick((n) => n + 1),
      Math.max(0, at - Date.now()) + 20,
    );
    return () => clearTimeout(timer);
  }, [now, delay, tick]);
  return now;
}

function wholeSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

/** The terminal's size, following resizes; fixed sizes (tests) win. */
export function useTerminalSize(fixed: {
  columns?: number | undefined;
  rows?: number | undefined;
}): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = () => ({
    columns: fixed.columns ?? (stdout.columns || 80),
    rows: fixed.rows ?? (stdout.rows || 24),
  });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, fixed.columns, fixed.rows]);
  return {
    columns: fixed.columns ?? size.columns,
    rows: fixed.rows ?? size.rows,
  };
}
