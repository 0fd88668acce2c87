import { describe, expect, it } from 'vitest';
import {
  comparePriority,
  createPriorityQueue,
} from '../../src/backends/queue.js';
import type { Priority } from '../../src/state/types.js';

function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('comparePriority', () => {
  it('orders high, normal, low, then by arrival', () => {
    const items: { priority: Priority; seq: number }[] = [
      { priority: 'low', seq: 1 },
      { priority: 'normal', seq: 2 },
      { priority: 'high', seq: 3 },
      { priority: 'normal', seq: 4 },
      { priority: 'high', seq: 5 },
    ];
    expect(items.sort(comparePriority).map((i) => i.seq)).toEqual([
      3, 5, 2, 4, 1,
    ]);
  });
});

describe('createPriorityQueue', () => {
  it('runs one at a time, waiting tasks by priority then arrival', async () => {
    const queue = createPriorityQueue(1);
    const first = gate();
    const order: string[] = [];
    const runs = [
      queue.run('normal', async () => {
        await first.promise;
        order.push('first');
      }),
      queue.run('low', () => Promise.resolve(order.push('low'))),
      queue.run('normal', () => Promise.resolve(order.push('normal'))),
      queue.run('high', () => Promise.resolve(order.push('high'))),
    ];
    expect(queue.size()).toBe(4);
    first.open();
    await Promise.all(runs);
    expect(order).toEqual(['first', 'high', 'normal', 'low']);
    expect(queue.size()).toBe(0);
  });

  it('never runs more than its concurrency, and a failing task frees its slot', async () => {
    const queue = createPriorityQueue(2);
    let running = 0;
    let most = 0;
    const task = (fail: boolean) => async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      if (fail) throw new Error('boom');
      return 'ok';
    };
    const results = await Promise.allSettled(
      [true, false, false, true, false].map((f) =>
        queue.run('normal', task(f)),
      ),
    );
    expect(most).toBe(2);
    expect(results.map((r) => r.status)).toEqual([
      'rejected',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
  });
});

// Issue 16, item 4: one agent's burst held up every other agent's requests.
describe('fair turns between agents', () => {
  it("starts a waiting agent's task before the rest of another agent's burst", async () => {
    const queue = createPriorityQueue(1);
    const order: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tasks = [
      queue.run('normal', () => gate.then(() => void order.push('a0')), 'a'),
      ...Array.from({ length: 5 }, (_, i) =>
        queue.run(
          'normal',
          () => Promise.resolve(void order.push(`a${i + 1}`)),
          'a',
        ),
      ),
      queue.run('normal', () => Promise.resolve(void order.push('b0')), 'b'),
    ];
    release();
    await Promise.all(tasks);
    expect(order.slice(0, 2)).toEqual(['a0', 'b0']);
    expect(order).toHaveLength(7);
  });
});
