/**
 * Answering a host's request at a hub (docs/remote.md): the host's own
 * `answer_request` takes it, or the hub keeps it for the host.
 */
import type { HomePaths } from '../home/paths.js';
import { ConfigError } from '../errors.js';
import type { HubAnswerBy } from '../protocol/approval.js';
import { splitResponse } from '../protocol/response.js';
import { answerRemoteRequest } from '../remote/answer.js';
import { HostRefusal, type HostSession } from '../remote/host-session.js';
import { withHostFleet, type HubContext } from './host-forward.js';

/** What became of an answer to a host's request. */
export type HostAnswerOutcome =
  | { type: 'answered' }
  | { type: 'held'; file: string }
  | { type: 'held-already' }
  | { type: 'refused'; reason: string };

/**
 * The one path of an answer to `<host>/<id>` (`macs respond`, the status
 * view): the host's `answer_request` takes it (instructions, and notes
 * never typed), with the host's checks; a host that cannot be reached now
 * gets it when it is back (kept at the hub). An empty answer is an error.
 */
export async function answerHostRequest(
  paths: HomePaths,
  session: () => Promise<HostSession>,
  answer: { host: string; id: string; text: string; by: HubAnswerBy },
): Promise<HostAnswerOutcome> {
  const parsed = splitResponse(answer.text);
  if (!parsed.instructions.trim())
    throw new ConfigError('the answer is empty; nothing was sent');
  try {
    return await answerRemoteRequest(paths, session, {
      host: answer.host,
      id: answer.id,
      instructions: parsed.instructions.trim(),
      ...(parsed.notes.trim() ? { notes: parsed.notes.trim() } : {}),
      by: answer.by,
    });
  } catch (error) {
    if (error instanceof HostRefusal)
      return { type: 'refused', reason: error.message };
    throw error;
  }
}

/**
 * `macs respond <host>/<id>`: answerHostRequest over a one-shot fleet (a
 * short session to the host, closed once answered).
 */
export function answerOnHost(
  hub: HubContext,
  answer: { host: string; id: string; text: string; by: HubAnswerBy },
): Promise<HostAnswerOutcome> {
  return withHostFleet(hub, (fleet) =>
    answerHostRequest(hub.paths, () => fleet.session(answer.host), answer),
  );
}
