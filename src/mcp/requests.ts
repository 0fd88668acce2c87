/**
 * The requests the tools of `macs mcp` read and answer, with the checks of
 * `macs respond`: find a pending request by id (or say why it is not
 * there), compose the answer text, and write it to the outbox, refusing a
 * second answer or a request that is not waiting in the inbox. Each refusal
 * is a `ToolRefusal` whose reason the model reads.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { HomePaths } from '../home/paths.js';
import type { HubAnswerBy } from '../protocol/approval.js';
import { isSafeFileName, isValidAgentName } from '../protocol/ids.js';
import { splitResponse } from '../protocol/response.js';
import { writeOutboxAnswer } from '../state/outbox.js';
import { requestIdsDir } from '../state/request-ids.js';
import { readPendingRequest } from '../state/request-lookup.js';
import type { SnapshotReader } from '../state/snapshot.js';
import type { RequestSnapshot } from '../state/snapshot-schema.js';
import { ToolRefusal } from './tool.js';

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
  if (!isSafeFileName(id)) throw new ToolRefusal(`'${id}' is not a request id`);
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
    throw new ToolRefusal(
      `no pending request '${id}': the request of ${owner} is finished (answered, dismissed or expired) and is not answered again; list_requests shows the pending ones`,
      owner,
    );
  throw new ToolRefusal(
    `no pending request '${id}': no agent of this home made it; list_requests shows the pending ones`,
  );
}

/** The answer text `macs respond` would be given: instructions, then notes. */
export function composeAnswer(instructions: string, notes?: string): string {
  const parsed = splitResponse(instructions);
  if (parsed.hasMarkers || parsed.notes !== '')
    throw new ToolRefusal(
      'the instructions hold a NOTES: header or response markers; give the notes in `notes` and plain text in `instructions`',
    );
  if (!parsed.instructions.trim())
    throw new ToolRefusal('the instructions are empty; nothing was written');
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
    throw new ToolRefusal(
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
      throw new ToolRefusal(`'${request.id}' is not a request id`);
    case 'empty':
      throw new ToolRefusal('the answer is empty; nothing was written');
    case 'not-pending':
      throw new ToolRefusal(
        `request '${request.id}' is not waiting in the inbox (stage ${request.stage}, answerer ${request.backend ?? 'none yet'}): it is being answered elsewhere or was already answered`,
        request.agent,
      );
    case 'already-answered':
      throw new ToolRefusal(
        `request '${request.id}' already has an answer waiting to be delivered; it is not answered twice`,
        request.agent,
      );
  }
}
