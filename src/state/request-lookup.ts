/**
 * One pending request read by its id, without a snapshot of the whole home:
 * the id's claim (`.macs/ids/<id>`, request-ids.ts) names its agent, so only
 * that agent's state file and the request's inbox file are read. For
 * `answer_request` and `decide_approval` on a host with many agents, where
 * a whole snapshot read every agent's files for one request. Gives what
 * `createSnapshotReader().read()` gives for the same request.
 */
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { HomePaths } from '../home/paths.js';
import { isSafeFileName, isValidAgentName } from '../protocol/ids.js';
import { requestIdsDir } from './request-ids.js';
import { readInboxContext } from './snapshot-files.js';
import { normalizeAgentState, toRequestSnapshot } from './snapshot-records.js';
import type { RequestSnapshot } from './snapshot-schema.js';
import { readAgentState } from './store.js';

/** The pending request `id`; undefined when its claim or record is not found. */
export async function readPendingRequest(
  paths: HomePaths,
  id: string,
  at = new Date(),
): Promise<RequestSnapshot | undefined> {
  if (!isSafeFileName(id)) return undefined;
  const owner = (
    await readFile(path.join(requestIdsDir(paths), id), 'utf8').catch(() => '')
  ).trim();
  if (!owner || !isValidAgentName(owner)) return undefined;
  const state = await readAgentState(paths, owner);
  const record = state ? normalizeAgentState(state).requests[id] : undefined;
  if (!record || record.id !== id) return undefined;
  // In the inbox as a snapshot's listing of it says: any entry of that name.
  const inInbox = await lstat(path.join(paths.inbox, `${id}.json`)).then(
    () => true,
    () => false,
  );
  const context =
    record.backend === 'file' || inInbox
      ? await readInboxContext(paths.inbox, id)
      : null;
  return toRequestSnapshot(record, context, at.getTime(), inInbox);
}
