import { randomBytes } from 'node:crypto';
import { open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ensurePrivateDir, FILE_MODE } from '../home/fs.js';
import { isProcessAlive } from '../state/process.js';

/** Gives out turns at one shared resource, one holder at a time, across processes. */
export interface TurnTickets {
  /**
   * Wait for our turn; resolves with a release function, or undefined when
   * the signal aborted the wait.
   */
  take(signal: AbortSignal): Promise<(() => Promise<void>) | undefined>;
}

const TICKET = /^(\d{15})-(\d+)-[0-9a-f]+\.ticket$/;
const HOLDER = 'holder';
const DEFAULT_POLL_MS = 50;

/**
 * Turns between processes through a folder. Mutual exclusion is the
 * `holder` file, created with O_EXCL and holding the owner's pid. Fairness
 * is a ticket per waiter, named by the time it was taken (then pid and a
 * random part): only the waiter with the oldest ticket tries for the holder
 * file, so turns go first come, first served. A holder or ticket whose
 * process is gone (a `kill -9`) is removed by the next waiter. Each process
 * takes a ticket only for the request it is about to run, so two bridges
 * with many requests each take turns.
 */
export function createTurnTickets(
  dir: string,
  options: { pollMs?: number } = {},
): TurnTickets {
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const holderFile = path.join(dir, HOLDER);

  /** Are we first in line (removing the tickets of dead processes ahead)? */
  async function firstInLine(name: string): Promise<boolean> {
    const ahead = (await readdir(dir))
      .filter((n) => TICKET.test(n) && n < name)
      .sort();
    let waiting = false;
    for (const other of ahead) {
      const pid = Number(TICKET.exec(other)?.[2]);
      if (pid !== process.pid && !isProcessAlive(pid))
        await rm(path.join(dir, other), { force: true });
      else waiting = true;
    }
    return !waiting;
  }

  /** Become the holder; a holder file left by a dead process is removed. */
  async function tryHold(): Promise<boolean> {
    try {
      const handle = await open(holderFile, 'wx', FILE_MODE);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const pid = Number.parseInt(
      await readFile(holderFile, 'utf8').catch(() => ''),
      10,
    );
    // A holder file still being written has no pid yet: wait for it.
    if (Number.isFinite(pid) && pid > 0 && !isProcessAlive(pid))
      await rm(holderFile, { force: true });
    return false;
  }

  return {
    async take(signal) {
      await ensurePrivateDir(dir);
      const name = `${String(Date.now()).padStart(15, '0')}-${process.pid}-${randomBytes(4).toString('hex')}.ticket`;
      const ticket = path.join(dir, name);
      await writeFile(ticket, `${process.pid}\n`, {
        mode: FILE_MODE,
        flag: 'wx',
      });
      for (;;) {
        if (signal.aborted) {
          await rm(ticket, { force: true });
          return undefined;
        }
        if ((await firstInLine(name)) && (await tryHold())) {
          return async () => {
            await rm(holderFile, { force: true });
            await rm(ticket, { force: true });
          };
        }
        try {
          await delay(pollMs, undefined, { signal });
        } catch {
          // aborted: handled at the top of the loop
        }
      }
    },
  };
}
