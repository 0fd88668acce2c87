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
  /** Run a task when a slot is free; waiting tasks start by priority, then arrival. */
  run<T>(priority: Priority, task: () => Promise<T>): Promise<T>;
  /** Tasks waiting for a slot or running. */
  size(): number;
}

interface Waiter {
  priority: Priority;
  seq: number;
  start: () => void;
}

/** At most `concurrency` tasks at once; the rest wait in priority order. */
export function createPriorityQueue(concurrency: number): PriorityQueue {
  const waiters: Waiter[] = [];
  let running = 0;
  let seq = 0;

  function next(): void {
    while (running < concurrency && waiters.length > 0) {
      waiters.sort(comparePriority);
      const waiter = waiters.shift();
      if (!waiter) return;
      running += 1;
      waiter.start();
    }
  }

  return {
    run<T>(priority: Priority, task: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        waiters.push({
          priority,
          seq: (seq += 1),
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
