// How a person's attached `macs start` tells a session `macs stop` ended
// from one whose tmux server was lost (issue 29): the record says
// `stopping` from the stop's first step, and the stopped record names the
// session once the stop is done.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import {
  markSessionStopping,
  readSessionRecord,
  recordNewSession,
  recordStoppedSession,
  removeSessionRecord,
  wasSessionStopped,
  writeSessionRecord,
  type SessionRecord,
} from '../../src/session/record.js';

describe('wasSessionStopped', () => {
  let home: string;
  let paths: HomePaths;
  const record: SessionRecord = {
    version: 1,
    id: '20261129-070000-ab12',
    home: '/h',
    socket: 's',
    session: 'macs',
    createdAt: '2026-11-29T07:00:00.000Z',
    backend: 'file',
    panes: { bridge: '%1', status: '%2' },
    agents: [],
  };

  beforeEach(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'macs-record-'));
    paths = resolveHomePaths(home);
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('is false for a running session, true once a stop began and after it is done', async () => {
    await writeSessionRecord(paths, record);
    expect(await wasSessionStopped(paths, record.id)).toBe(false);

    await markSessionStopping(paths, new Date('2026-11-29T08:00:00Z'));
    expect((await readSessionRecord(paths))?.stopping).toBe(
      '2026-11-29T08:00:00.000Z',
    );
    expect(await wasSessionStopped(paths, record.id)).toBe(true);
    // Another session's stop is not this one's.
    expect(await wasSessionStopped(paths, 'other')).toBe(false);

    await recordStoppedSession(paths, record);
    await removeSessionRecord(paths);
    expect(await wasSessionStopped(paths, record.id)).toBe(true);
    expect(await wasSessionStopped(paths, 'other')).toBe(false);
  });

  it('is false when the record is gone without a stop that names the session', async () => {
    expect(await wasSessionStopped(paths, record.id)).toBe(false);
    expect(await wasSessionStopped(paths, undefined)).toBe(false);
    await recordStoppedSession(paths, { ...record, id: 'earlier' });
    expect(await wasSessionStopped(paths, record.id)).toBe(false);
  });
});

// `macs start` and `macs start --resume` each built and wrote the session
// record themselves (issue 30); now both go through recordNewSession.
describe('recordNewSession', () => {
  let home: string;
  let paths: HomePaths;
  beforeEach(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'macs-record-'));
    paths = resolveHomePaths(home);
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('names the macs session, stamps it now, drops a stop of the one it resumes, and writes it', async () => {
    const lost: SessionRecord = {
      version: 1,
      id: 'old',
      home: '/h',
      socket: 's',
      session: 'other',
      createdAt: '2026-11-28T07:00:00.000Z',
      backend: 'file',
      panes: { bridge: '%1', status: '%2' },
      agents: [],
      stopping: '2026-11-28T08:00:00.000Z',
    };
    const now = new Date('2026-11-29T09:00:00Z');
    const record = await recordNewSession(
      paths,
      { ...lost, id: 'new', panes: { bridge: '%5', status: '%6' } },
      now,
    );
    const { stopping: _stopping, ...kept } = lost;
    expect(record).toEqual({
      ...kept,
      id: 'new',
      session: 'macs',
      createdAt: '2026-11-29T09:00:00.000Z',
      panes: { bridge: '%5', status: '%6' },
    });
    expect(await readSessionRecord(paths)).toEqual(record);
  });
});
