import { rm } from 'node:fs/promises';
import path from 'node:path';
import { ensurePrivateDir, writeFileAtomic } from '../../home/fs.js';
import type { HomePaths } from '../../home/paths.js';
import type { RequestRecord } from '../../state/types.js';

/** `archive/<YYYY-MM-DD>/` for a request, by the day it was detected (UTC). */
export function archiveDir(paths: HomePaths, record: RequestRecord): string {
  return path.join(paths.archive, record.detectedAt.slice(0, 10));
}

/**
 * Archive a finished request: its body, the answer as received, and the
 * record with every timestamp. Idempotent, so a restart may repeat it.
 */
export async function archiveRequest(
  paths: HomePaths,
  record: RequestRecord,
): Promise<string> {
  const dir = archiveDir(paths, record);
  await ensurePrivateDir(paths.archive);
  await ensurePrivateDir(dir);
  await writeFileAtomic(
    path.join(dir, `${record.id}.request.txt`),
    record.body,
  );
  if (record.response) {
    await writeFileAtomic(
      path.join(dir, `${record.id}.response.txt`),
      record.response.raw,
    );
  }
  await writeArchivedRecord(paths, record);
  return dir;
}

/**
 * Write (again) an archived request's record, every field but its body
 * (kept beside it): after archiving, or when its stage changed afterwards.
 */
export async function writeArchivedRecord(
  paths: HomePaths,
  record: RequestRecord,
): Promise<void> {
  const { body: _body, ...meta } = record;
  await writeFileAtomic(
    path.join(archiveDir(paths, record), `${record.id}.json`),
    `${JSON.stringify(meta, null, 2)}\n`,
  );
}

/** Remove a finished request's inbox and outbox files (answer or dismissal first, metadata last). */
export async function removeRequestFiles(
  paths: HomePaths,
  id: string,
): Promise<void> {
  await rm(path.join(paths.outbox, `${id}.txt`), { force: true });
  await rm(path.join(paths.outbox, `${id}.dismiss`), { force: true });
  await rm(path.join(paths.inbox, `${id}.txt`), { force: true });
  await rm(path.join(paths.inbox, `${id}.json`), { force: true });
}
