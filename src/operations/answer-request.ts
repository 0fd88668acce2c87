/**
 * Answering a request and deciding an approval, the operations under
 * `macs respond`, the MCP tools `answer_request` and `decide_approval` and
 * the page of `macs web`: find a pending request by id (or say why it is
 * not there), compose the answer text, and write it to the outbox (the
 * bridge delivers it), refusing a second answer or a request that is not
 * waiting in the inbox. The operations return what happened; a refusal is
 * a value with its reason, which each door says in its own way.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { HomePaths } from '../home/paths.js';
import type { HubAnswerBy } from '../protocol/approval.js';
import { isSafeFileName, isValidAgentName } from '../protocol/ids.js';
import { splitResponse } from '../protocol/response.js';
import { writeOutboxAnswer, type WriteAnswerResult } from '../state/outbox.js';
import { requestIdsDir } from '../state/request-ids.js';
import { readPendingRequest } from '../state/request-lookup.js';
import type { SnapshotReader } from '../state/snapshot.js';
import type {
  IncompleteSnapshot,
  RequestSnapshot,
} from '../state/snapshot-schema.js';
import { findIncompleteById } from '../state/incomplete-requests.js';
import { readAllAgentStates } from '../state/pending.js';
import { Refusal } from './refusal.js';

/** The tool an answer came through, noted for the bridge. */
export type AnswerBy =
  | 'mcp:answer_request'
  | 'mcp:decide_approval'
  | 'web:answer'
  | 'web:decide_approval'
  | HubAnswerBy;

/** A pending request of the home; a refusal says why there is none. */
export async function findRequest(
  paths: HomePaths,
  reader: SnapshotReader,
  id: string,
): Promise<RequestSnapshot> {
  if (!isSafeFileName(id)) throw new Refusal(`'${id}' is not a request id`);
  // Its agent's files only, when its claim names the agent (request-lookup.ts).
  const pending = await readPendingRequest(paths, id);
  if (pending) return pending;
  const snapshot = await reader.read();
  const found = snapshot.requests.find((r) => r.id === id);
  if (found) return found;
  // A finished request's id stays claimed for its agent (.macs/ids/<id>).
  const owner = (
    await readFile(path.join(requestIdsDir(paths), id), 'utf8').catch(() => '')
  ).trim();
  if (owner && isValidAgentName(owner))
    throw new Refusal(
      `no pending request '${id}': the request of ${owner} is finished (answered, dismissed or expired) and is not answered again; list_requests shows the pending ones`,
      owner,
    );
  throw new Refusal(
    `no pending request '${id}': no agent of this home made it; list_requests shows the pending ones`,
  );
}

/** The answer text `macs respond` would be given: instructions, then notes. */
export function composeAnswer(instructions: string, notes?: string): string {
  const parsed = splitResponse(instructions);
  if (parsed.hasMarkers || parsed.notes !== '')
    throw new Refusal(
      'the instructions hold a NOTES: header or response markers; give the notes in `notes` and plain text in `instructions`',
    );
  if (!parsed.instructions.trim())
    throw new Refusal('the instructions are empty; nothing was written');
  if (!notes?.trim()) return `${instructions.trim()}\n`;
  return `WORKER INSTRUCTIONS:\n${instructions.trim()}\n\nNOTES:\n${notes.trim()}\n`;
}

/** Write an answer as `macs respond` does; a refusal says why. */
export async function writeAnswer(
  paths: HomePaths,
  request: RequestSnapshot,
  text: string,
  by: AnswerBy,
): Promise<{ file: string; chars: number; untyped: number }> {
  // Answered already (its answer waits for delivery, or is on its way):
  // never a second answer, whatever the outbox holds by now.
  if (request.answer || !request.waitingForPerson)
    throw new Refusal(
      request.answer
        ? `request '${request.id}' is already answered (stage ${request.stage}); it is not answered twice`
        : `request '${request.id}' is not waiting for an answer here (stage ${request.stage}, answerer ${request.backend ?? 'none yet'})`,
      request.agent,
    );
  const result = await writeOutboxAnswer(paths, request.id, text, { by });
  switch (result.type) {
    case 'written':
      return {
        file: result.file,
        chars: result.chars,
        untyped: result.untyped,
      };
    case 'bad-id':
      throw new Refusal(`'${request.id}' is not a request id`);
    case 'empty':
      throw new Refusal('the answer is empty; nothing was written');
    case 'not-pending':
      throw new Refusal(
        `request '${request.id}' is not waiting in the inbox (stage ${request.stage}, answerer ${request.backend ?? 'none yet'}): it is being answered elsewhere or was already answered`,
        request.agent,
      );
    case 'already-answered':
      throw new Refusal(
        `request '${request.id}' already has an answer waiting to be delivered; it is not answered twice`,
        request.agent,
      );
  }
}

/** What became of an answer or a decision given through a door. */
export type AnswerResult =
  | {
      type: 'answered';
      request: RequestSnapshot;
      written: { file: string; chars: number; untyped: number };
    }
  /** `decideApproval` on a request that is no approval. */
  | { type: 'not-approval'; request: RequestSnapshot }
  | { type: 'refused'; reason: string; agent?: string };

async function answerWith(
  find: () => Promise<RequestSnapshot>,
  write: (request: RequestSnapshot) => Promise<AnswerResult>,
): Promise<AnswerResult> {
  try {
    return await write(await find());
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return {
      type: 'refused',
      reason: error.message,
      ...(error.agent ? { agent: error.agent } : {}),
    };
  }
}

/** Answer a pending request: instructions (typed) and notes (never typed). */
export function answerRequest(
  paths: HomePaths,
  reader: SnapshotReader,
  answer: { id: string; instructions: string; notes?: string; by: AnswerBy },
): Promise<AnswerResult> {
  return answerWith(
    () => findRequest(paths, reader, answer.id),
    async (request) => {
      const text = composeAnswer(answer.instructions, answer.notes);
      const written = await writeAnswer(paths, request, text, answer.by);
      return { type: 'answered', request, written };
    },
  );
}

/**
 * Allow or deny a pending approval: the answer `allow: <reason>` or
 * `deny: <reason>`, with `note` (who decided) kept for people.
 */
export function decideApproval(
  paths: HomePaths,
  reader: SnapshotReader,
  decision: {
    id: string;
    decision: 'allow' | 'deny';
    reason: string;
    note: string;
    by: AnswerBy;
  },
): Promise<AnswerResult> {
  return answerWith(
    () => findRequest(paths, reader, decision.id),
    async (request) => {
      if (request.type !== 'approval') return { type: 'not-approval', request };
      const text = composeAnswer(
        `${decision.decision}: ${decision.reason.trim()}`,
        `${decision.note}: ${decision.decision}`,
      );
      const written = await writeAnswer(paths, request, text, decision.by);
      return { type: 'answered', request, written };
    },
  );
}

/** What `respondToRequest` did: written, or why not. */
export type RespondResult =
  WriteAnswerResult | { type: 'incomplete'; incomplete: IncompleteSnapshot };

/**
 * `macs respond <id>`: the answer written as given (`force`: whatever the
 * inbox and outbox hold); a request that is not pending but an incomplete
 * block's (its end marker not printed yet) says so.
 */
export async function respondToRequest(
  paths: HomePaths,
  id: string,
  answer: string,
  options: { force: boolean },
): Promise<RespondResult> {
  const result = await writeOutboxAnswer(paths, id, answer, options);
  if (result.type !== 'not-pending') return result;
  // A block without its end marker that will have this id (issue 29):
  // not a request yet, so there is nothing to answer.
  const incomplete = findIncompleteById(
    await readAllAgentStates(paths).catch(() => []),
    id,
  );
  return incomplete ? { type: 'incomplete', incomplete } : result;
}
