import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createGuardHistories,
  noteAnswer,
  noteRequest,
  pruneHistory,
  type AgentHistory,
} from '../../../src/bridge/route/guard-history.js';
import { GUARD_WINDOW_MS } from '../../../src/bridge/route/router.js';
import { createEventLog } from '../../../src/events/log.js';
import { resolveHomePaths, type HomePaths } from '../../../src/home/paths.js';
import { createLogger } from '../../../src/log/logger.js';
import { hashBody } from '../../../src/protocol/ids.js';
import { makeTempHome } from '../../helpers/tmux-server.js';

const log = createLogger({ level: 'silent' });
const empty = (): AgentHistory => ({
  requests: new Map(),
  answered: new Map(),
});

describe('createGuardHistories', () => {
  let cleanup: () => void;
  let paths: HomePaths;

  beforeEach(() => {
    let home: string;
    ({ home, cleanup } = makeTempHome('macs-guard-history-'));
    paths = resolveHomePaths(home);
  });
  afterEach(() => cleanup());

  it("reads an agent's requests and accepted answers back from its events", async () => {
    const events = createEventLog(paths);
    const emit = (agent: string, type: string, id: string, data = {}) =>
      events.emit({ agent, type: type as 'warning', requestId: id, data });
    const hash = hashBody('same question').slice(0, 12);
    await emit('w1', 'request.detected', 'w1-a', { hash });
    await emit('w1', 'request.answered', 'w1-a');
    await emit('w1', 'request.detected', 'w1-b', { hash: 'b'.repeat(12) });
    await emit('w1', 'request.answered', 'w1-unknown');
    await emit('w2', 'request.detected', 'w2-a', { hash });

    const histories = createGuardHistories({ paths, log, now: Date.now });
    const history = await histories.of('w1');
    expect([...history.requests.keys()]).toEqual(['w1-a', 'w1-b']);
    expect([...history.answered.entries()]).toEqual([
      [hash, { id: 'w1-a', at: expect.any(Number) }],
    ]);
    // Read once: what the dispatcher adds stays, the log is not read again.
    history.requests.delete('w1-b');
    expect((await histories.of('w1')).requests.has('w1-b')).toBe(false);
    expect([...(await histories.of('w2')).requests.keys()]).toEqual(['w2-a']);
  });

  it("never reads back an earlier session's requests and answers", async () => {
    // Bug (issue 29): the history was read over the last hour whatever the
    // session, so a second run of the demo had its first request taken for
    // a repeat of the first run's. Strategy: events of the same body before
    // and after the session's start; only the later ones are remembered.
    const events = createEventLog(paths);
    const hash = hashBody('which path?').slice(0, 12);
    const at = Date.now();
    const emit = (type: string, id: string, ts: number, data = {}) =>
      events.emit({
        agent: 'w1',
        type: type as 'warning',
        requestId: id,
        ts: new Date(ts).toISOString(),
        data,
      });
    await emit('request.detected', 'w1-old', at - 60_000, { hash });
    await emit('request.answered', 'w1-old', at - 59_000);
    await emit('request.detected', 'w1-new', at - 1000, {
      hash: 'c'.repeat(12),
    });

    const histories = createGuardHistories({
      paths,
      log,
      now: () => at,
      since: at - 30_000,
    });
    const history = await histories.of('w1');
    expect([...history.requests.keys()]).toEqual(['w1-new']);
    expect(history.answered.size).toBe(0);
  });

  it('starts empty for an agent with no events', async () => {
    const histories = createGuardHistories({ paths, log, now: Date.now });
    expect(await histories.of('nobody')).toEqual(empty());
  });
});

describe('noteRequest and noteAnswer', () => {
  it('remember a request by its detection time and hash prefix, and its accepted answer', () => {
    const history = empty();
    const detectedAt = '2026-01-02T03:04:05.000Z';
    noteRequest(history, { id: 'r1', detectedAt, bodyHash: 'f'.repeat(64) }, 7);
    expect(history.requests.get('r1')).toEqual({
      at: Date.parse(detectedAt),
      hash: 'f'.repeat(12),
    });
    noteAnswer(history, 'r1', 99);
    expect(history.answered.get('f'.repeat(12))).toEqual({ id: 'r1', at: 99 });
  });

  it('keeps the first time a request was seen, and uses now for a bad date', () => {
    const history = empty();
    noteRequest(history, { id: 'r1', detectedAt: 'garbled', bodyHash: 'a' }, 5);
    noteRequest(history, { id: 'r1', detectedAt: 'garbled', bodyHash: 'a' }, 9);
    expect(history.requests.get('r1')).toEqual({ at: 5, hash: 'a' });
  });

  it('ignores an answer to a request it never saw', () => {
    const history = empty();
    noteAnswer(history, 'unknown', 1);
    expect(history.answered.size).toBe(0);
  });
});

describe('pruneHistory', () => {
  it('forgets requests and answers older than the guard window', () => {
    const now = 10 * GUARD_WINDOW_MS;
    const old = now - GUARD_WINDOW_MS - 1;
    const recent = now - GUARD_WINDOW_MS;
    const history: AgentHistory = {
      requests: new Map([
        ['old', { at: old, hash: 'h1' }],
        ['recent', { at: recent, hash: 'h2' }],
      ]),
      answered: new Map([
        ['h1', { id: 'old', at: old }],
        ['h2', { id: 'recent', at: recent }],
      ]),
    };
    pruneHistory(history, now);
    expect([...history.requests.keys()]).toEqual(['recent']);
    expect([...history.answered.keys()]).toEqual(['h2']);
  });
});
