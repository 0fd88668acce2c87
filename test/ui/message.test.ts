// Issue 29: the view's message line stayed until a key was pressed, ten
// minutes and a session later. These cases pin when a message stops being
// shown: its maximum age, another session, its request no longer open; and
// that a message with nothing to outlive stays (an error about a request
// already gone must still be read).
import { describe, expect, it } from 'vitest';
import {
  MESSAGE_MAX_AGE_MS,
  intentMessage,
  msUntilViewChanges,
  shownMessage,
  stampMessage,
  type UiMessage,
} from '../../src/ui/message.js';
import { NOW, makeRequest, makeSnapshot } from './fixtures.js';

const snapshot = makeSnapshot({
  requests: [makeRequest({ id: 'w1-q1', stage: 'answered' })],
});
const session = snapshot.session.id;

describe('shownMessage', () => {
  const message: UiMessage = { text: 'hi', tone: 'ok', at: NOW, session };

  it('shows a message up to its maximum age, then no more', () => {
    expect(shownMessage(message, snapshot, NOW + MESSAGE_MAX_AGE_MS - 1)).toBe(
      message,
    );
    expect(
      shownMessage(message, snapshot, NOW + MESSAGE_MAX_AGE_MS),
    ).toBeUndefined();
  });

  it('never shows a message said in another session', () => {
    expect(
      shownMessage({ ...message, session: 'earlier' }, snapshot, NOW),
    ).toBeUndefined();
    expect(
      shownMessage({ ...message, session: null }, snapshot, NOW),
    ).toBeUndefined();
  });

  it('shows an answer written while its request is open, not once it is delivered or gone', () => {
    const written = { ...message, requestId: 'w1-q1' };
    expect(shownMessage(written, snapshot, NOW)).toBe(written);
    const delivered = makeSnapshot({
      requests: [makeRequest({ id: 'w1-q1', stage: 'delivered' })],
    });
    expect(shownMessage(written, delivered, NOW)).toBeUndefined();
    expect(shownMessage(written, makeSnapshot(), NOW)).toBeUndefined();
  });

  it('keeps an error about a request that is gone: only an answer written is tied to it', () => {
    const error = intentMessage(
      { ok: false, message: 'w1-q9 is no longer pending' },
      'w1-q9',
    );
    expect(error.requestId).toBeUndefined();
    expect(shownMessage(error, snapshot, NOW)).toBe(error);
    expect(intentMessage({ ok: true, message: 'x' }, 'w1-q1').requestId).toBe(
      'w1-q1',
    );
  });
});

describe('stampMessage', () => {
  const stamp = { at: NOW, session: 's1' };
  it('stamps a new message once, and leaves an old or stamped one alone', () => {
    type State = { message: UiMessage | undefined };
    const before: State = { message: undefined };
    const next: State = { message: { text: 'new', tone: 'info' } };
    expect(stampMessage(next, before, stamp).message).toEqual({
      text: 'new',
      tone: 'info',
      at: NOW,
      session: 's1',
    });
    expect(stampMessage(next, next, stamp)).toBe(next);
    const stamped: State = { message: { text: 'old', tone: 'info', at: 5 } };
    expect(stampMessage(stamped, before, stamp)).toBe(stamped);
  });
});

describe('msUntilViewChanges', () => {
  it('wakes the view when the message ages out, if nothing changes sooner', () => {
    const message: UiMessage = { text: 'hi', tone: 'ok', at: NOW, session };
    expect(msUntilViewChanges(undefined, message, NOW + 1000)).toBe(
      MESSAGE_MAX_AGE_MS - 1000,
    );
    expect(msUntilViewChanges(undefined, undefined, NOW)).toBeUndefined();
  });
});
