import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTurnTickets } from '../../src/backends/turns.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

describe('createTurnTickets', () => {
  let dir: string;
  let cleanup: () => void;

  beforeEach(() => {
    let home: string;
    ({ home, cleanup } = makeTempHome('macs-turns-'));
    dir = path.join(home, 'turns');
  });
  afterEach(() => cleanup());

  it('gives turns one at a time, in the order they were asked for', async () => {
    const turns = createTurnTickets(dir, { pollMs: 5 });
    const signal = new AbortController().signal;
    const order: string[] = [];
    const releaseFirst = await turns.take(signal);
    expect(releaseFirst).toBeDefined();
    const second = turns.take(signal).then(async (release) => {
      order.push('second');
      await release?.();
    });
    // The second has asked (its ticket is there) while the first holds the turn.
    await waitFor(() => readdirSync(dir).length === 2, {
      message: 'the second ticket',
    });
    order.push('first done');
    await releaseFirst?.();
    await second;
    expect(order).toEqual(['first done', 'second']);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('removes the ticket of a process that is gone', async () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.pid']).pid;
    const turns = createTurnTickets(dir, { pollMs: 5 });
    await turns.take(new AbortController().signal).then((r) => r?.());
    writeFileSync(path.join(dir, `000000000000001-${gone}-abcd.ticket`), '');
    const release = await turns.take(new AbortController().signal);
    expect(release).toBeDefined();
    expect(readdirSync(dir).some((n) => n.includes(`-${gone}-`))).toBe(false);
    await release?.();
  });

  it('gives up waiting when the signal aborts, leaving no ticket behind', async () => {
    const turns = createTurnTickets(dir, { pollMs: 5 });
    const release = await turns.take(new AbortController().signal);
    const controller = new AbortController();
    const waiting = turns.take(controller.signal);
    // Aborted once it waits in line (its ticket is there).
    await waitFor(
      () => readdirSync(dir).filter((n) => n.endsWith('.ticket')).length === 2,
      { message: 'the waiting ticket' },
    );
    controller.abort();
    expect(await waiting).toBeUndefined();
    expect(readdirSync(dir).filter((n) => n.endsWith('.ticket'))).toHaveLength(
      1,
    );
    await release?.();
  });

  // Regression: two tickets taken in the same millisecond sort by their
  // random part, so a later ticket could sort before the one already
  // holding the turn and both would run. The holder file (O_EXCL) keeps the
  // turn exclusive whatever the ticket order.
  it('never gives two turns at once, even to tickets of the same millisecond', async () => {
    const turns = createTurnTickets(dir, { pollMs: 1 });
    const signal = new AbortController().signal;
    let holders = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        const release = await turns.take(signal);
        holders += 1;
        most = Math.max(most, holders);
        await new Promise((resolve) => setTimeout(resolve, 5));
        holders -= 1;
        await release?.();
      }),
    );
    expect(most).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('takes over the turn of a process that died holding it', async () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.pid']).pid;
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'holder'), `${gone}\n`);
    const turns = createTurnTickets(dir, { pollMs: 5 });
    const release = await turns.take(new AbortController().signal);
    expect(release).toBeDefined();
    await release?.();
  });
});
