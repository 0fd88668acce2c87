import type { Priority } from '../state/types.js';

const PRIORITY_RANK: Record<Priority, number> = { high: 0, normal: 1, low: 2 };

/** Queue order: high before normal before low; equal priorities keep arrival order. */
export function comparePriority(
  a: { priority: Priority; seq: number },
  b: { priority: Priority; seq: number },
): number {
  return PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority] || a.seq - b.seq;
}

export interface PriorityQueue {
  /**
   * Run a task when a slot is free; waiting tasks start by priority, then
   * (with a `key`, e.g. the agent) the key that has started fewest, then
   * arrival: one agent's burst never holds up another's requests.
   */
  run<T>(priority: Priority, task: () => Promise<T>, key?: string): Promise<T>;
  /** Tasks waiting for a slot or running. */
  size(): number;
}

interface Waiter {
  priority: Priority;
  seq: number;
  key: string;
  start: () => void;
}

/** At most `concurrency` tasks at once; the rest wait in priority order. */
export function createPriorityQueue(concurrency: number): PriorityQueue {
  const waiters: Waiter[] = [];
  /** How many tasks each key has started (fair turns between keys). */
  const started = new Map<string, number>();
  let running = 0;
  let seq = 0;

  const turnsOf = (w: Waiter) => started.get(w.key) ?? 0;

  function next(): void {
    while (running < concurrency && waiters.length > 0) {
      waiters.sort(
        (a, b) =>
          PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority] ||
          turnsOf(a) - turnsOf(b) ||
          a.seq - b.seq,
      );
      const waiter = waiters.shift();
      if (!waiter) return;
      running += 1;
      started.set(waiter.key, turnsOf(waiter) + 1);
      waiter.start();
    }
    // Turns count within one busy spell: forgotten once the queue is empty.
    if (waiters.length === 0 && running === 0) started.clear();
  }

  return {
    run<T>(priority: Priority, task: () => Promise<T>, key = ''): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        waiters.push({
          priority,
          seq: (seq += 1),
          key,
          start: () => {
            void task()
              .then(resolve, reject)
              .finally(() => {
                running -= 1;
                next();
              });
          },
        });
        next();
      });
    },
    size: () => waiters.length + running,
  };
}
