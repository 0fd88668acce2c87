/**
 * The inbox's files (SPEC §3): each request waiting at the file backend is
 * `inbox/<id>.txt` (its body, as a person sees it) and `inbox/<id>.json`
 * (its metadata, written last). The bridge reads the metadata back to know
 * which agent an answer in `outbox/` is for.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { escapeInvisible, hasInvisible } from '../protocol/sanitize.js';
import { writeFileAtomic } from '../home/fs.js';
import type { BackendRequest } from './types.js';

/** Metadata written next to each inbox body: `inbox/<id>.json`. */
export interface InboxMeta {
  id: string;
  agent: string;
  workerId?: string;
  type: string;
  priority: string;
  attributes: Record<string, string>;
  detectedAt: string;
  preset: string;
  hash: string;
  backend: 'file';
  /** The body held invisible or direction-changing characters (shown escaped). */
  invisible?: true;
  /** The output it came in hid text from the person (concealed SGR). */
  concealed?: true;
  context?: unknown;
}

/** Pure: the metadata of a request, as `inbox/<id>.json` holds it. */
export function inboxMetaOf(request: BackendRequest): InboxMeta {
  return {
    id: request.id,
    agent: request.agent,
    ...(request.workerId ? { workerId: request.workerId } : {}),
    type: request.type,
    priority: request.priority,
    attributes: request.attributes,
    detectedAt: request.detectedAt,
    preset: request.preset,
    hash: request.bodyHash,
    backend: 'file',
    ...(hasInvisible(request.body) ? { invisible: true } : {}),
    ...(request.concealed ? { concealed: true } : {}),
    ...(request.context ? { context: request.context } : {}),
  };
}

/** Write a request's two inbox files (the inbox folder exists). */
export async function writeInboxRequest(
  inbox: string,
  request: BackendRequest,
): Promise<void> {
  // Body first, metadata last: a reader that sees the .json sees the .txt.
  // Shown as a person sees it: invisible characters escaped (<U+202E>).
  await writeFileAtomic(
    path.join(inbox, `${request.id}.txt`),
    escapeInvisible(request.body),
  );
  await writeFileAtomic(
    path.join(inbox, `${request.id}.json`),
    `${JSON.stringify(inboxMetaOf(request), null, 2)}\n`,
  );
}

/**
 * The metadata of a request in the inbox, or undefined (none, or not
 * readable). Read synchronously: it sits between an answer being written
 * and it being typed, and a call through the thread pool waits its turn on
 * a busy machine.
 */
export function readInboxMeta(
  inbox: string,
  id: string,
): InboxMeta | undefined {
  try {
    return JSON.parse(
      readFileSync(path.join(inbox, `${id}.json`), 'utf8'),
    ) as InboxMeta;
  } catch {
    return undefined;
  }
}
