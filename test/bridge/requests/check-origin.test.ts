import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkOrigin } from '../../../src/bridge/requests/check-origin.js';

const now = { agent: 'w1', pane: '%3', panePid: 200, session: 's2' };
const reasonOf = (verdict: ReturnType<typeof checkOrigin>) =>
  verdict.type === 'asker' ? undefined : verdict.reason;

describe('checkOrigin: who may take an answer', () => {
  it.each([
    [
      'the same pane, program and session',
      { pane: '%3', panePid: 200, session: 's2' },
      undefined,
    ],
    ['a record of an older version (no origin)', {}, undefined],
    ['another session', { session: 's1' }, /earlier macs session \(s1\)/],
    [
      'another pane',
      { pane: '%1' },
      /asked in pane %1; the agent now runs in pane %3/,
    ],
    [
      'a restarted program',
      { pane: '%3', panePid: 100 },
      /restarted since it asked \(pid 100, now 200\)/,
    ],
  ])('%s', (_name, record, expected) => {
    const reason = reasonOf(checkOrigin(record, now));
    if (expected === undefined) expect(reason).toBeUndefined();
    else expect(reason).toMatch(expected);
  });

  it('a request of a session, seen by a bridge outside any session', () => {
    expect(
      reasonOf(checkOrigin({ session: 's1' }, { agent: 'w1', pane: '%3' })),
    ).toMatch(/session s1, which has ended/);
  });

  it('and the pane as it is now', () => {
    const record = { pane: '%3', panePid: 200, session: 's2' };
    const pane = { dead: false, agentTag: 'w1', pid: 200 };
    expect(checkOrigin(record, now, pane)).toEqual({ type: 'asker' });
    // An untagged pane (tmux shows an unset option as '').
    expect(checkOrigin(record, now, { ...pane, agentTag: '' })).toEqual({
      type: 'asker',
    });
    expect(checkOrigin(record, now, 'gone')).toEqual({
      type: 'gone',
      reason: 'pane %3 is gone',
    });
    expect(checkOrigin(record, now, { ...pane, dead: true })).toEqual({
      type: 'gone',
      reason: 'the program in pane %3 ended',
    });
    expect(checkOrigin(record, now, { ...pane, agentTag: 'w2' })).toEqual({
      type: 'retagged',
      tag: 'w2',
      reason: "pane %3 is now tagged for agent 'w2'",
    });
    expect(checkOrigin(record, now, { ...pane, pid: 300 })).toMatchObject({
      type: 'restarted',
      pid: 300,
    });
    // The record says nothing of its program: the agent's program is asked.
    expect(checkOrigin({ pane: '%3' }, now, { ...pane, pid: 300 }).type).toBe(
      'restarted',
    );
    // What the record says is checked before the pane.
    expect(checkOrigin({ session: 's1' }, now, 'gone').type).toBe('elsewhere');
  });
});

// One check of an answer's origin (issue 23): it was made in two places
// (answers.ts stillAsked read the pane's tag and program itself, and
// pane-claim.ts originMismatch the record's session, pane and program),
// with a third copy for dialogs (dialog-checks.ts paneBlocker); they could
// drift apart. Strategy: read the sources; each path that lets an answer
// reach the agent calls checkOrigin, and no other file of the bridge
// compares a pane's tag to the agent or a record's origin to the agent's.
describe('the one check of an origin', () => {
  const BRIDGE = fileURLToPath(new URL('../../../src/bridge', import.meta.url));
  const read = (file: string) => readFileSync(path.join(BRIDGE, file), 'utf8');

  it.each([
    ['answers/answers.ts', 'stillAsked'],
    ['approvals/dialog-checks.ts', 'paneBlocker'],
    ['requests/request-steps.ts', 'endForeign'],
  ])('%s (%s) calls checkOrigin', (file, fn) => {
    const text = read(file);
    const body = text.slice(text.indexOf(fn));
    expect(body).toMatch(/checkOrigin\(/);
  });

  it('no other module of the bridge makes the check itself', () => {
    const COMPARES =
      /agentTag\s*!==?\s*(?:agent|now\.agent)|record\.(?:session|pane|panePid)\s*!==?\s*(?!undefined)/;
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory()
          ? files(path.join(dir, e.name))
          : [path.join(dir, e.name)],
      );
    const offenders = files(BRIDGE)
      .filter((f) => !f.endsWith(path.join('requests', 'check-origin.ts')))
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .filter((line) => COMPARES.test(line))
          .map((line) => `${path.relative(BRIDGE, f)}: ${line.trim()}`),
      );
    expect(offenders).toEqual([]);
    expect(COMPARES.test('if (info.agentTag && info.agentTag !== agent)')).toBe(
      true,
    );
    expect(COMPARES.test('record.panePid !== now.panePid')).toBe(true);
    expect(COMPARES.test('record.panePid === undefined')).toBe(false);
  });
});
