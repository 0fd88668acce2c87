/**
 * Answers given at the hub while their host is unreachable, kept in a
 * private file each (`.macs/remote/held/<host>/<id>.json`) until a session
 * with the host delivers them. A delivery first renames the file to a
 * claim of its own process, so two hub processes never send the same
 * answer; the host refuses an answer for a request already answered, so a
 * delivery retried after a lost reply is still delivered once.
 */
import { readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { createExclusive } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';
import { isSafeFileName, isValidAgentName } from '../protocol/ids.js';
import { isProcessAlive } from '../state/process.js';

const HeldAnswerSchema = z.object({
  host: z.string().refine(isValidAgentName),
  id: z.string().refine(isSafeFileName),
  instructions: z.string().min(1),
  notes: z.string().optional(),
  by: z.string(),
  givenAt: z.string(),
});
export type HeldAnswer = z.infer<typeof HeldAnswerSchema>;

/** `.macs/remote/` of a home: what the hub keeps about its hosts. */
export function remoteDir(paths: HomePaths): string {
  return path.join(paths.runtime, 'remote');
}

function heldDir(paths: HomePaths, host: string): string {
  if (!isValidAgentName(host)) throw new Error(`bad host name '${host}'`);
  return path.join(remoteDir(paths), 'held', host);
}

/**
 * Keep an answer for a host that cannot be reached now; `undefined` when an
 * answer for that request is held already (a request is answered once).
 */
export async function holdAnswer(
  paths: HomePaths,
  answer: HeldAnswer,
): Promise<string | undefined> {
  if (!isSafeFileName(answer.id))
    throw new Error(`bad request id '${answer.id}'`);
  const file = path.join(heldDir(paths, answer.host), `${answer.id}.json`);
  return (await createExclusive(file, `${JSON.stringify(answer)}\n`))
    ? file
    : undefined;
}

/** The answers held for a host, oldest name first. */
export async function listHeldAnswers(
  paths: HomePaths,
  host: string,
): Promise<HeldAnswer[]> {
  const dir = heldDir(paths, host);
  const names = await readdir(dir).catch(() => [] as string[]);
  const held: HeldAnswer[] = [];
  for (const name of names.sort()) {
    if (!name.endsWith('.json')) continue;
    const parsed = HeldAnswerSchema.safeParse(
      JSON.parse(
        await readFile(path.join(dir, name), 'utf8').catch(() => 'null'),
      ),
    );
    if (parsed.success) held.push(parsed.data);
  }
  return held;
}

/** Claims of a process that ended mid-delivery go back to be delivered. */
async function releaseStaleClaims(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const claim = /^(.+\.json)\.claim-(\d+)$/.exec(name);
    if (!claim || isProcessAlive(Number(claim[2]))) continue;
    await rename(path.join(dir, name), path.join(dir, claim[1]!)).catch(
      () => undefined,
    );
  }
}

export type HeldOutcome = 'delivered' | 'refused' | 'failed';

/**
 * Deliver each held answer of a host with `send` (once per answer): the
 * file is claimed first, removed once the host took or refused the answer,
 * and put back when the link failed on the way.
 */
export async function deliverHeldAnswers(
  paths: HomePaths,
  host: string,
  send: (answer: HeldAnswer) => Promise<HeldOutcome>,
): Promise<{ id: string; outcome: HeldOutcome }[]> {
  const dir = heldDir(paths, host);
  await releaseStaleClaims(dir);
  const done: { id: string; outcome: HeldOutcome }[] = [];
  for (const answer of await listHeldAnswers(paths, host)) {
    const file = path.join(dir, `${answer.id}.json`);
    const claim = `${file}.claim-${process.pid}`;
    try {
      await rename(file, claim);
    } catch {
      continue; // another process took it
    }
    const outcome = await send(answer).catch(() => 'failed' as const);
    if (outcome === 'failed') await rename(claim, file).catch(() => undefined);
    else await rm(claim, { force: true });
    done.push({ id: answer.id, outcome });
  }
  return done;
}
