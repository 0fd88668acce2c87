/**
 * The small files of a home a snapshot reads besides the agents' state
 * files: an inbox request's context, the archived answer of a finished
 * request, a bridge's lock file, the inbox's list and the session record.
 * Each read is forgiving: a file missing or half-written reads as nothing,
 * since a snapshot shows a home that bridges are changing as it is read.
 */
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { HomePaths } from '../home/paths.js';
import { isProcessAlive } from './process.js';
import type { AgentSnapshot, SessionSnapshot } from './snapshot-schema.js';
import type { RecentRequest, StoredResponse } from './types.js';

/** The context packet of a request in the inbox (`inbox/<id>.json`), or null. */
export async function readInboxContext(
  inbox: string,
  id: string,
): Promise<unknown> {
  try {
    const meta = JSON.parse(
      await readFile(path.join(inbox, `${id}.json`), 'utf8'),
    ) as { context?: unknown };
    return meta.context ?? null;
  } catch {
    return null;
  }
}

/** Ids of the requests in `inbox/` (those waiting for a person). */
export async function readInboxIds(inbox: string): Promise<Set<string>> {
  try {
    return new Set(
      (await readdir(inbox))
        .filter((n) => n.endsWith('.json'))
        .map((n) => n.slice(0, -'.json'.length)),
    );
  } catch {
    return new Set();
  }
}

/**
 * An agent's bridge: running when its lock file (`state/<agent>.lock`)
 * names a live process. A bridge killed outright leaves the file behind.
 */
export function readBridge(
  stateDir: string,
  agent: string,
): AgentSnapshot['bridge'] {
  // A lock file holds a pid: read synchronously, as the feed's liveness
  // check does for every agent every few seconds (four thread-pool round
  // trips a file through fs/promises cost more than the read itself).
  let text = '';
  try {
    text = readFileSync(path.join(stateDir, `${agent}.lock`), 'utf8');
  } catch {
    // no lock: no bridge
  }
  const pid = Number.parseInt(text, 10);
  if (!Number.isFinite(pid) || pid <= 0) return { running: false, pid: null };
  return isProcessAlive(pid)
    ? { running: true, pid }
    : { running: false, pid: null };
}

/** What `macs start --resume` recorded of the agents it brought back (session.json `resumed`). */
function resumedOf(value: unknown): Pick<SessionSnapshot, 'resumed'> {
  if (typeof value !== 'object' || value === null) return {};
  const v = value as { from?: unknown; agents?: unknown };
  if (!Array.isArray(v.agents)) return {};
  const outcomes = ['resumed', 'fresh', 'failed'] as const;
  return {
    resumed: {
      from: typeof v.from === 'string' ? v.from : null,
      agents: v.agents.flatMap((a: unknown) => {
        const { name, outcome, why } = (a ?? {}) as Record<string, unknown>;
        const known = outcomes.find((o) => o === outcome);
        return typeof name === 'string' && known
          ? [
              {
                name,
                outcome: known,
                why: typeof why === 'string' ? why : null,
              },
            ]
          : [];
      }),
    },
  };
}

/** The running session, else the last stopped one (small JSON files). */
export async function readSession(
  paths: Pick<HomePaths, 'sessionFile' | 'stoppedSessionFile'>,
): Promise<SessionSnapshot> {
  return (await readSessionInfo(paths)).session;
}

/**
 * The session as status shows it, and the agents of the running one
 * (null when no session runs: status then shows every agent with a state
 * file), from one read of `.macs/session.json`.
 */
export async function readSessionInfo(
  paths: Pick<HomePaths, 'sessionFile' | 'stoppedSessionFile'>,
): Promise<{
  session: SessionSnapshot;
  agents: ReadonlySet<string> | null;
  /** The running session's tmux server (`tmux -L <socket>`), when recorded. */
  socket: string | null;
}> {
  const read = async (file: string) => {
    try {
      return JSON.parse(await readFile(file, 'utf8')) as Record<
        string,
        unknown
      >;
    } catch {
      return undefined;
    }
  };
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const running = await read(paths.sessionFile);
  if (running)
    return {
      session: {
        status: 'running',
        id: text(running.id),
        since: text(running.createdAt),
        ...resumedOf(running.resumed),
      },
      agents: Array.isArray(running.agents)
        ? new Set(
            running.agents.flatMap((a: unknown) => {
              const name = (a as { name?: unknown } | null)?.name;
              return typeof name === 'string' ? [name] : [];
            }),
          )
        : null,
      socket: text(running.socket),
    };
  const stopped = await read(paths.stoppedSessionFile);
  if (stopped)
    return {
      session: {
        status: 'stopped',
        id: text(stopped.id),
        since: text(stopped.stoppedAt),
      },
      agents: null,
      socket: null,
    };
  return {
    session: { status: 'none', id: null, since: null },
    agents: null,
    socket: null,
  };
}

/**
 * A reader of finished requests' archived answers (see bridge/archive.ts
 * for the layout). An archived answer never changes, so each is read once;
 * a missing one is looked for again (the bridge archives before it forgets).
 */
export function createArchivedAnswers(
  archive: string,
): (recent: RecentRequest) => Promise<StoredResponse | null> {
  const archived = new Map<string, StoredResponse | null>();
  return async (recent) => {
    const cached = archived.get(recent.id);
    if (cached !== undefined) return cached;
    let response: StoredResponse | null = null;
    try {
      const meta = JSON.parse(
        await readFile(
          path.join(
            archive,
            recent.detectedAt.slice(0, 10),
            `${recent.id}.json`,
          ),
          'utf8',
        ),
      ) as { response?: StoredResponse };
      response = meta.response ?? null;
    } catch {
      response = null;
    }
    // A missing archive may still appear (the bridge archives before it forgets).
    if (response) archived.set(recent.id, response);
    return response;
  };
}
