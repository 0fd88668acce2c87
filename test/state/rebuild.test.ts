import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MacsEvent } from '../../src/events/types.js';
import { hashBody } from '../../src/protocol/ids.js';
import { claimRequest } from '../../src/state/claim.js';
import {
  rebuildFromEvents,
  recoverAgentState,
} from '../../src/state/rebuild.js';
import {
  freshAgentState,
  loadAgentState,
  stateFilePath,
} from '../../src/state/store.js';
import { createHomeFixture } from './home-fixture.js';

const AGENT = 'w';
let seconds = 0;

/** One event of agent `w`, a second after the previous one. */
function ev(
  type: string,
  requestId?: string,
  data?: Record<string, unknown>,
): MacsEvent {
  seconds += 1;
  return {
    ts: new Date(Date.UTC(2025, 2, 1, 12, 0, seconds)).toISOString(),
    agent: AGENT,
    type: type as MacsEvent['type'],
    ...(requestId ? { requestId } : {}),
    ...(data ? { data } : {}),
  };
}

const detected = (id: string, body: string, logOffset: number) =>
  ev('request.detected', `w-${id}`, {
    type: 'question',
    priority: 'high',
    attributes: { id, type: 'question' },
    chars: body.length,
    hash: hashBody(body).slice(0, 12),
    bodyHash: hashBody(body),
    logOffset,
  });

const line = (event: MacsEvent) => JSON.stringify(event);

describe('rebuildFromEvents', () => {
  beforeEach(() => {
    seconds = 0;
  });

  it('takes each request to the stage of its latest event, never backwards', () => {
    const { requests } = rebuildFromEvents(
      [
        detected('a', 'A', 0),
        ev('request.routed', 'w-a', { backend: 'file' }),
        detected('b', 'B', 10),
        ev('request.routed', 'w-b', { backend: 'exec' }),
        ev('request.answered', 'w-b'),
        ev('request.delivering', 'w-b'),
        detected('c', 'C', 20),
        ev('request.answered', 'w-c'),
        ev('request.delivered', 'w-c'),
        ev('request.archived', 'w-c', { stage: 'delivered' }),
        ev('request.confirmed', 'w-c'),
        // A resumed bridge routes again: not a step back.
        ev('request.routed', 'w-b', { backend: 'file', resumed: true }),
      ],
      freshAgentState(AGENT, 'generic'),
    );
    const stage = (id: string) => requests.get(id)?.record.stage;
    expect(stage('w-a')).toBe('routed');
    expect(requests.get('w-a')?.record.backend).toBe('file');
    expect(stage('w-b')).toBe('delivering');
    expect(stage('w-c')).toBe('confirmed');
    expect(requests.get('w-c')?.archived).toBe(true);
    expect(requests.get('w-a')?.record).toMatchObject({
      workerId: 'a',
      priority: 'high',
      bodyHash: hashBody('A'),
    });
  });

  it('remembers every detected id and body hash, and counts', () => {
    const { state } = rebuildFromEvents(
      [
        detected('a', 'A', 0),
        ev('request.duplicate', 'w-a'),
        ev('request.malformed'),
        ev('request.delivered', 'w-a'),
      ],
      freshAgentState(AGENT, 'generic'),
    );
    expect(Object.keys(state.dedup.ids)).toEqual(['a']);
    expect(Object.keys(state.dedup.bodies)).toEqual([hashBody('A')]);
    expect(state.counters).toEqual({
      detected: 1,
      delivered: 1,
      duplicates: 1,
      malformed: 1,
    });
  });

  it('resumes from the last offset recorded, and from 0 after the log was cut', () => {
    const base = freshAgentState(AGENT, 'generic');
    const offset = (events: MacsEvent[]) =>
      rebuildFromEvents(events, base).state.logOffset;
    expect(
      offset([
        ev('bridge.started', undefined, { offset: 0, logInode: 7 }),
        detected('a', 'A', 120),
        ev('bridge.stopped', undefined, { offset: 300 }),
      ]),
    ).toBe(300);
    expect(
      offset([
        ev('bridge.resumed', undefined, { offset: 300 }),
        ev('capture.truncated', undefined, { previousOffset: 300, size: 0 }),
      ]),
    ).toBe(0);
    expect(
      rebuildFromEvents(
        [ev('bridge.resumed', undefined, { offset: 3, logInode: 9 })],
        base,
      ).state.logInode,
    ).toBe(9);
  });

  it("ignores other agents' events", () => {
    const other = { ...detected('a', 'A', 0), agent: 'x' };
    const { requests } = rebuildFromEvents(
      [other],
      freshAgentState(AGENT, 'generic'),
    );
    expect(requests.size).toBe(0);
  });

  // A screen approval rebuilt without its origin would look like a worker's
  // request, whose answer is typed: the origin and fingerprint are kept.
  it('keeps where an approval came from (a screen dialog, a hook), so its answer is never typed', () => {
    const { requests } = rebuildFromEvents(
      [
        ev('request.detected', 'w-s', {
          type: 'approval',
          origin: 'screen',
          attributes: { origin: 'screen', fingerprint: '0123456789abcdef' },
        }),
        ev('request.detected', 'w-h', { type: 'approval', origin: 'hook' }),
      ],
      freshAgentState(AGENT, 'codex'),
    );
    expect(requests.get('w-s')?.record).toMatchObject({
      origin: 'screen',
      attributes: { fingerprint: '0123456789abcdef' },
    });
    expect(requests.get('w-h')?.record.origin).toBe('hook');
  });
});

describe('recoverAgentState', () => {
  let fixture: ReturnType<typeof createHomeFixture>;
  beforeEach(() => {
    seconds = 0;
    fixture = createHomeFixture();
  });
  afterEach(() => fixture.cleanup());

  function writeInbox(id: string, body: string): void {
    mkdirSync(fixture.paths.inbox, { recursive: true });
    writeFileSync(path.join(fixture.paths.inbox, `${id}.txt`), body);
  }

  it('carries open requests on with their bodies; an answer not typed is taken again, one maybe typed never', async () => {
    fixture.writeEvents(
      AGENT,
      [
        detected('open', 'still open', 0),
        ev('request.routed', 'w-open', { backend: 'file' }),
        detected('ans', 'answered, not typed', 40),
        ev('request.routed', 'w-ans', { backend: 'file' }),
        ev('request.answered', 'w-ans'),
        detected('typ', 'answered, typing began', 80),
        ev('request.routed', 'w-typ', { backend: 'file' }),
        ev('request.answered', 'w-typ'),
        detected('done', 'finished', 120),
        ev('request.delivered', 'w-done'),
        ev('request.archived', 'w-done', { stage: 'delivered' }),
      ].map(line),
    );
    writeInbox('w-open', 'still open');
    writeInbox('w-ans', 'answered, not typed');
    writeInbox('w-typ', 'answered, typing began');
    // The bridge claimed w-typ right before typing (its event was lost).
    await claimRequest(fixture.paths, 'w-typ', 'bridge');

    const { state, summary } = await recoverAgentState(
      fixture.paths,
      freshAgentState(AGENT, 'generic'),
    );
    expect(state.requests['w-open']).toMatchObject({
      stage: 'routed',
      body: 'still open',
      bodyHash: hashBody('still open'),
    });
    expect(state.requests['w-ans']?.stage).toBe('routed');
    expect(state.requests['w-ans']?.response).toBeUndefined();
    expect(state.requests['w-typ']?.stage).toBe('delivering');
    expect(state.requests['w-done']).toBeUndefined();
    expect(state.recent.map((r) => r.id)).toEqual(['w-done']);
    expect(summary).toMatchObject({
      reanswer: ['w-ans'],
      reread: [],
      finished: 1,
      resume: { routed: ['w-open', 'w-ans'], delivering: ['w-typ'] },
      logOffset: 120,
    });
  });

  it('forgets a request whose body is nowhere and reads the log again from before it', async () => {
    fixture.writeEvents(
      AGENT,
      [
        detected('kept', 'kept', 10),
        detected('lost', 'lost', 50),
        ev('request.routed', 'w-lost', { backend: 'exec' }),
        detected('later', 'later', 90),
      ].map(line),
    );
    writeInbox('w-kept', 'kept');
    writeInbox('w-later', 'later');
    const { state, summary } = await recoverAgentState(
      fixture.paths,
      freshAgentState(AGENT, 'generic'),
    );
    expect(summary.reread).toEqual(['w-lost']);
    expect(state.logOffset).toBe(50);
    expect(state.requests['w-lost']).toBeUndefined();
    expect(Object.keys(state.dedup.ids).sort()).toEqual(['kept', 'later']);
  });

  it('loadAgentState moves an unreadable file aside and rebuilds', async () => {
    fixture.writeEvents(
      AGENT,
      [
        detected('a', 'A', 0),
        ev('request.routed', 'w-a', { backend: 'file' }),
      ].map(line),
    );
    writeInbox('w-a', 'A');
    mkdirSync(fixture.paths.state, { recursive: true });
    writeFileSync(stateFilePath(fixture.paths, AGENT), '{"version":1,"ag');
    const loaded = await loadAgentState(fixture.paths, AGENT, 'generic');
    expect(loaded.type).toBe('corrupt');
    if (loaded.type !== 'corrupt') return;
    expect(loaded.movedTo).toMatch(/w\.json\.corrupt-\d+$/);
    expect(loaded.rebuilt?.resume).toEqual({ routed: ['w-a'] });
    expect(loaded.state.requests['w-a']?.body).toBe('A');
  });
});
