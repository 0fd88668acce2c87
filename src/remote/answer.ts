/**
 * Answering a host's request from the hub: through the host's own
 * `answer_request` (the host's checks apply: a request is answered once),
 * or, when the host cannot be reached, kept at the hub and delivered when
 * a session with the host opens again (held-answers.ts).
 */
import type { HomePaths } from '../home/paths.js';
import { hubAnswerBy } from '../protocol/approval.js';
import {
  holdAnswer,
  type HeldAnswer,
  type HeldOutcome,
} from './held-answers.js';
import { HostRefusal, type HostSession } from './host-session.js';
import { RemoteError } from './ssh-errors.js';

/** The host's `answer_request` arguments, with who answered at the hub. */
function hostArgs(
  answer: Pick<HeldAnswer, 'id' | 'instructions' | 'notes' | 'by'>,
): Record<string, unknown> {
  const by = hubAnswerBy(answer.by);
  return {
    id: answer.id,
    instructions: answer.instructions,
    ...(answer.notes ? { notes: answer.notes } : {}),
    ...(by ? { by } : {}),
  };
}

/** Send one held answer; a refusal (answered already, gone) ends it too. */
export async function sendHeldAnswer(
  session: HostSession,
  answer: HeldAnswer,
): Promise<HeldOutcome> {
  try {
    await session.call('answer_request', hostArgs(answer));
    return 'delivered';
  } catch (error) {
    if (
      error instanceof HostRefusal &&
      !/link is closed|Connection closed|timed out/i.test(error.message)
    )
      return 'refused';
    return 'failed';
  }
}

export type RemoteAnswerResult =
  | { type: 'answered' }
  | { type: 'held'; file: string }
  | { type: 'held-already' };

/**
 * Answer `id` on `host`: at once through `session()` when the host is
 * reachable, else kept for delivery. A refusal of the host is thrown
 * (`HostRefusal`: no pending request, answered already).
 */
export async function answerRemoteRequest(
  paths: HomePaths,
  session: () => Promise<HostSession>,
  answer: Omit<HeldAnswer, 'givenAt'>,
): Promise<RemoteAnswerResult> {
  let live: HostSession | undefined;
  try {
    live = await session();
  } catch (error) {
    if (!(error instanceof RemoteError) || !isUnreachable(error)) throw error;
  }
  if (live) {
    try {
      await live.call('answer_request', hostArgs(answer));
      return { type: 'answered' };
    } catch (error) {
      // The link fell during the call: keep it; the host refuses a second
      // answer, so a delivery that did arrive is not repeated.
      if (
        !(error instanceof HostRefusal) ||
        !/link is closed|Connection closed|timed out/i.test(error.message)
      )
        throw error;
    }
  }
  const file = await holdAnswer(paths, {
    ...answer,
    givenAt: new Date().toISOString(),
  });
  return file ? { type: 'held', file } : { type: 'held-already' };
}

/** A failure that means "not reachable now" (kept answers wait for it). */
export function isUnreachable(error: RemoteError): boolean {
  return error.kind === 'unreachable' || error.kind === 'timeout';
}
