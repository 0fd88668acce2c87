import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EVENT_TAIL_BYTES,
  createRecentEventsReader,
} from '../../src/state/snapshot-events.js';
import { createHomeFixture } from './home-fixture.js';

const line = (agent: string, second: number, pad = '') =>
  JSON.stringify({
    ts: new Date(
      Date.parse('2025-03-01T00:00:00.000Z') + second * 1000,
    ).toISOString(),
    agent,
    type: 'state.changed',
    data: { n: second, ...(pad ? { pad } : {}) },
  });

describe('recent events', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  beforeEach(() => {
    fx = createHomeFixture();
  });
  afterEach(() => fx.cleanup());

  it('are none without an events folder', async () => {
    expect(await createRecentEventsReader(fx.paths.events, 5)()).toEqual([]);
  });

  it("merge every agent's newest events by time, keeping the last few", async () => {
    fx.writeEvents('w1', [line('w1', 1), line('w1', 4), line('w1', 6)]);
    fx.writeEvents('w2', [line('w2', 2), line('w2', 3), line('w2', 5)]);
    writeFileSync(path.join(fx.paths.events, 'notes.txt'), 'not events\n');
    const events = await createRecentEventsReader(fx.paths.events, 4)();
    expect(events.map((e) => [e.agent, e.data?.n])).toEqual([
      ['w2', 3],
      ['w1', 4],
      ['w2', 5],
      ['w1', 6],
    ]);
  });

  it('read only the end of a long file, never a cut line', async () => {
    const pad = 'x'.repeat(300);
    const count = Math.ceil((EVENT_TAIL_BYTES * 2) / 350);
    fx.writeEvents(
      'w1',
      Array.from({ length: count }, (_, i) => line('w1', i, pad)),
    );
    const events = await createRecentEventsReader(fx.paths.events, 1000)();
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThan(count);
    expect(events.at(-1)?.data?.n).toBe(count - 1);
    expect(events[0]?.data?.pad).toBe(pad);
  });

  it('read a file again when it changed', async () => {
    fx.writeEvents('w1', [line('w1', 1)]);
    const read = createRecentEventsReader(fx.paths.events, 5);
    expect((await read()).map((e) => e.data?.n)).toEqual([1]);
    expect((await read()).map((e) => e.data?.n)).toEqual([1]);
    appendFileSync(
      path.join(fx.paths.events, 'w1.jsonl'),
      `${line('w1', 2)}\n`,
    );
    expect((await read()).map((e) => e.data?.n)).toEqual([1, 2]);
  });
});
