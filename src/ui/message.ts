/**
 * The view's message line, and when it stops being true. Pure: the App
 * stamps each message when it is set (time, session, the request it
 * speaks of) and shows it only while `shownMessage` says it still holds.
 */
import type { Snapshot } from '../state/snapshot-schema.js';
import { msUntilNextAgeChange } from './view-format.js';
import type { IntentResult } from '../operations/view-intents.js';
import { selectShownTimes } from './view-model.js';

export type MessageTone = 'info' | 'ok' | 'error';

/** How long a message stays on the line at most. */
export const MESSAGE_MAX_AGE_MS = 60_000;

/** The stages of a request whose answer is still on its way to the agent. */
const ON_ITS_WAY = new Set([
  'detected',
  'routed',
  'answered',
  'delivering',
  'pasted',
]);

export interface UiMessage {
  text: string;
  tone: MessageTone;
  /** When it was set (epoch ms); unstamped messages never age out. */
  at?: number;
  /** The session it was said in (`session.id`; null: none). */
  session?: string | null;
  /**
   * The request it speaks of while that request is open (an answer
   * written, which the bridge is to deliver): it goes once the request is
   * delivered or ended.
   */
  requestId?: string;
}

/**
 * The message to show now, or undefined: gone after MESSAGE_MAX_AGE_MS, in
 * another session than it was said in, or once the request it speaks of is
 * no longer open.
 */
export function shownMessage(
  message: UiMessage | undefined,
  snapshot: Pick<Snapshot, 'session' | 'requests'>,
  now: number,
): UiMessage | undefined {
  if (!message) return undefined;
  if (message.at !== undefined && now - message.at >= MESSAGE_MAX_AGE_MS)
    return undefined;
  if (message.session !== undefined && message.session !== snapshot.session.id)
    return undefined;
  if (message.requestId !== undefined) {
    const request = snapshot.requests.find((r) => r.id === message.requestId);
    if (!request || !ON_ITS_WAY.has(request.stage)) return undefined;
  }
  return message;
}

/** How long until the message ages out (undefined: no message, or no age). */
export function msUntilMessageExpires(
  message: UiMessage | undefined,
  now: number,
): number | undefined {
  if (message?.at === undefined) return undefined;
  return Math.max(0, message.at + MESSAGE_MAX_AGE_MS - now);
}

/**
 * The view's next state with its message stamped, when the message is new
 * (set since `previous`, and not stamped yet).
 */
export function stampMessage<T extends { message: UiMessage | undefined }>(
  next: T,
  previous: T,
  stamp: { at: number; session: string | null },
): T {
  const { message } = next;
  if (!message || message === previous.message || message.at !== undefined)
    return next;
  return { ...next, message: { ...message, ...stamp } };
}

/** What an intent did, as a message; an answer written speaks of its request. */
export function intentMessage(
  result: IntentResult,
  requestId?: string,
): UiMessage {
  return {
    text: result.message,
    tone: result.ok ? 'ok' : 'error',
    ...(result.ok && requestId !== undefined ? { requestId } : {}),
  };
}

/**
 * How long until the view looks different with no new snapshot: an age on
 * screen changes, or the message ages out (undefined: never).
 */
export function msUntilViewChanges(
  snapshot: Snapshot | undefined,
  message: UiMessage | undefined,
  now: number,
): number | undefined {
  const age = snapshot
    ? msUntilNextAgeChange(selectShownTimes(snapshot), now)
    : undefined;
  const expiry = msUntilMessageExpires(message, now);
  if (age === undefined) return expiry;
  return expiry === undefined ? age : Math.min(age, expiry);
}
