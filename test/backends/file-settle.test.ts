// Issue 29 (found by the bridge test's odd-files case on a quiet run): a
// large answer written in place was taken half-written. Its writer wrote it
// in two parts; the bridge's look fell between them, saw the same size and
// time before and after its read, and typed the first 1 MiB. A large file
// must now be still for a moment before it is read. Strategy: the file
// backend's own check, called between the two writes of a 400 KB answer.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileBackend } from '../../src/backends/file.js';
import type { BackendAnswer } from '../../src/backends/types.js';
import { createEventLog } from '../../src/events/log.js';
import { createLogger } from '../../src/log/logger.js';
import { createHomeFixture } from '../state/home-fixture.js';
import { waitFor } from '../helpers/wait-for.js';

describe('file backend: a large answer written in place', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  beforeEach(() => {
    fx = createHomeFixture();
  });
  afterEach(() => fx.cleanup());

  it('is read only once its writer has finished', async () => {
    const backend = createFileBackend({
      paths: fx.paths,
      events: createEventLog(fx.paths),
      log: createLogger({ level: 'silent' }),
      backstopMs: 600_000,
    });
    const taken: BackendAnswer[] = [];
    backend.register('w', (answer) => {
      taken.push(answer);
      return Promise.resolve('accepted');
    });
    fx.writeInboxMeta('w-q1', { id: 'w-q1', agent: 'w' });
    mkdirSync(fx.paths.outbox, { recursive: true });
    const file = path.join(fx.paths.outbox, 'w-q1.txt');
    writeFileSync(file, 'a'.repeat(300 * 1024));
    await backend.checkOutboxFile('w-q1.txt');
    expect(taken).toEqual([]);
    appendFileSync(file, 'b'.repeat(100 * 1024));
    await waitFor(() => taken.length > 0, {
      timeout: 10_000,
      message: 'the answer taken once still',
    });
    expect(taken).toHaveLength(1);
    expect(taken[0]?.text.length).toBe(400 * 1024);
    await backend.stop();
  });
});
