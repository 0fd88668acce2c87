import { mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createArchivedAnswers,
  readBridge,
  readInboxContext,
  readInboxIds,
  readSession,
} from '../../src/state/snapshot-files.js';
import type { RecentRequest } from '../../src/state/types.js';
import { createHomeFixture, makeRecord } from './home-fixture.js';

describe("a snapshot's small files", () => {
  let fx: ReturnType<typeof createHomeFixture>;
  beforeEach(() => {
    fx = createHomeFixture();
  });
  afterEach(() => fx.cleanup());

  it('reads the context of a request in the inbox, and the ids there', async () => {
    expect(await readInboxIds(fx.paths.inbox)).toEqual(new Set());
    fx.writeInboxMeta('w1-q-1', { context: { branch: 'main' } });
    fx.writeInboxMeta('w1-q-2', {});
    writeFileSync(path.join(fx.paths.inbox, 'w1-q-1.txt'), 'body');
    expect(await readInboxIds(fx.paths.inbox)).toEqual(
      new Set(['w1-q-1', 'w1-q-2']),
    );
    expect(await readInboxContext(fx.paths.inbox, 'w1-q-1')).toEqual({
      branch: 'main',
    });
    expect(await readInboxContext(fx.paths.inbox, 'w1-q-2')).toBeNull();
    expect(await readInboxContext(fx.paths.inbox, 'w1-q-3')).toBeNull();
  });

  it('takes a bridge as running only when its lock names a live process', () => {
    mkdirSync(fx.paths.state, { recursive: true });
    const lock = (text: string) =>
      writeFileSync(path.join(fx.paths.state, 'w1.lock'), text);
    expect(readBridge(fx.paths.state, 'w1')).toEqual({
      running: false,
      pid: null,
    });
    lock(`${process.pid}\n`);
    expect(readBridge(fx.paths.state, 'w1')).toEqual({
      running: true,
      pid: process.pid,
    });
    lock('not a pid');
    expect(readBridge(fx.paths.state, 'w1').running).toBe(false);
    lock('2147483646');
    expect(readBridge(fx.paths.state, 'w1')).toEqual({
      running: false,
      pid: null,
    });
  });

  it('reads the running session, else the last stopped one', async () => {
    expect(await readSession(fx.paths)).toEqual({
      status: 'none',
      id: null,
      since: null,
    });
    mkdirSync(path.dirname(fx.paths.sessionFile), { recursive: true });
    writeFileSync(
      fx.paths.stoppedSessionFile,
      JSON.stringify({ id: 's-1', stoppedAt: '2025-03-01T11:00:00.000Z' }),
    );
    expect(await readSession(fx.paths)).toEqual({
      status: 'stopped',
      id: 's-1',
      since: '2025-03-01T11:00:00.000Z',
    });
    writeFileSync(
      fx.paths.sessionFile,
      JSON.stringify({ id: 's-2', createdAt: '2025-03-01T11:30:00.000Z' }),
    );
    expect(await readSession(fx.paths)).toEqual({
      status: 'running',
      id: 's-2',
      since: '2025-03-01T11:30:00.000Z',
    });
    writeFileSync(fx.paths.sessionFile, JSON.stringify({ id: 7 }));
    expect(await readSession(fx.paths)).toEqual({
      status: 'running',
      id: null,
      since: null,
    });
  });

  it('reads an archived answer once, and looks again for one not yet archived', async () => {
    const recent: RecentRequest = {
      id: 'worker-1-q-17',
      type: 'question',
      stage: 'delivered',
      detectedAt: '2025-03-01T11:58:00.000Z',
      firstLine: 'Should I migrate now?',
    };
    const read = createArchivedAnswers(fx.paths.archive);
    expect(await read(recent)).toBeNull();
    const response = {
      instructions: 'later',
      notes: '',
      source: 'outbox',
      receivedAt: '2025-03-01T11:59:00.000Z',
      raw: 'later',
    };
    const { body: _body, ...record } = makeRecord({ response });
    fx.writeArchive(record);
    expect(await read(recent)).toEqual(response);
    unlinkSync(path.join(fx.paths.archive, '2025-03-01', 'worker-1-q-17.json'));
    expect(await read(recent)).toEqual(response);
  });
});
