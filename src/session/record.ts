import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { BackendName } from '../config/schema.js';
import { ensurePrivateDir, writeFileAtomic } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';

/** The tmux session name `macs start` creates on its private server. */
export const SESSION_NAME = 'macs';

export type AgentRole = 'controller' | 'worker';

/** Exactly how an agent's program was launched, so `macs restart` runs it again. */
export interface AgentLaunch {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}

/** One agent of a running session, as `.macs/session.json` records it. */
export interface SessionAgentRecord {
  name: string;
  role: AgentRole;
  preset: string;
  pane: string;
  /** The pid of the agent's program (the pane's process) when it started. */
  pid?: number;
  /** What runs in the pane, for people (argv, or `sh -c TEXT`). */
  command: string[];
  cwd: string;
  worktree?: { path: string; branch: string };
  /** The first message (prompts/worker.md) the bridge types into the worker. */
  prompt?: {
    file: string;
    promptedAt?: string;
    /**
     * `macs restart` is starting the program again: the bridge waits for it
     * to record the new pid before it decides whether the first message
     * goes again.
     */
    restarting?: boolean;
  };
  /** How it was launched (absent in records written before `macs restart`). */
  launch?: AgentLaunch;
  /** A controller started with `macs mcp` as its MCP server, and how (docs/mcp.md). */
  mcp?: 'claude' | 'codex' | 'gemini';
}

/** `.macs/session.json`: what `macs start` created, for stop, attach, bridge --all and status. */
export interface SessionRecord {
  version: 1;
  /**
   * This session's id: its requests carry it, and a request of another
   * session is never answered (docs/reliability.md). Absent in records
   * written before sessions had ids.
   */
  id?: string;
  home: string;
  /** The private tmux server: `tmux -L <socket>`. */
  socket: string;
  session: string;
  createdAt: string;
  backend: BackendName;
  /** An explicit `--config` file the session was started with. */
  config?: string;
  /** Started unattended (`--non-interactive`): its bridge runs so again. */
  nonInteractive?: true;
  demo?: { runId: string; result: string };
  /**
   * A session `macs start --resume` brought back after its tmux server was
   * gone: the session it was, and what became of each agent.
   */
  resumed?: {
    from?: string;
    at: string;
    agents: {
      name: string;
      outcome: 'resumed' | 'fresh' | 'failed';
      conversation?: string;
      why?: string;
    }[];
  };
  /** Pane ids of the bridge and status windows. */
  panes: { bridge: string; status: string };
  agents: SessionAgentRecord[];
  /**
   * When `macs stop` began ending this session (before it stopped a pane):
   * a person's attached `macs start` whose tmux client ends then knows the
   * session was stopped, not lost.
   */
  stopping?: string;
}

/** A new session id: the start time and a random part (`20261124-114400-3f9a`). */
export function newSessionId(now = new Date()): string {
  const stamp = now
    .toISOString()
    .slice(0, 19)
    .replace(/[-:]/g, '')
    .replace('T', '-');
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

export function sessionFilePath(paths: HomePaths): string {
  return paths.sessionFile;
}

function isSessionRecord(value: unknown): value is SessionRecord {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<SessionRecord>;
  return (
    v.version === 1 &&
    typeof v.socket === 'string' &&
    typeof v.session === 'string' &&
    Array.isArray(v.agents)
  );
}

/** The session record, or undefined when there is none (or it is unreadable). */
export async function readSessionRecord(
  paths: HomePaths,
): Promise<SessionRecord | undefined> {
  try {
    const value: unknown = JSON.parse(
      await readFile(sessionFilePath(paths), 'utf8'),
    );
    return isSessionRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export async function writeSessionRecord(
  paths: HomePaths,
  record: SessionRecord,
): Promise<void> {
  await ensurePrivateDir(paths.runtime);
  await writeFileAtomic(
    sessionFilePath(paths),
    `${JSON.stringify(record, null, 2)}\n`,
  );
}

/** A new session's record, but for what recordNewSession gives every one. */
export type NewSessionRecord = Omit<
  SessionRecord,
  'session' | 'createdAt' | 'stopping'
> &
  Partial<Pick<SessionRecord, 'session' | 'createdAt' | 'stopping'>>;

/**
 * Record a session just made on the private server (`macs start`, and
 * `macs start --resume` from the record of the one that was lost): the
 * macs session's name, created now, never stopping; written to
 * `.macs/session.json`. Returns the record as written.
 */
export async function recordNewSession(
  paths: HomePaths,
  fields: NewSessionRecord,
  now = new Date(),
): Promise<SessionRecord> {
  const { stopping: _stopping, ...rest } = fields;
  const record: SessionRecord = {
    ...rest,
    session: SESSION_NAME,
    createdAt: now.toISOString(),
  };
  await writeSessionRecord(paths, record);
  return record;
}

/** `.macs/session.stopped.json`: the last session `macs stop` ended, and when. */
export function stoppedSessionFilePath(paths: HomePaths): string {
  return paths.stoppedSessionFile;
}

export interface StoppedSessionRecord {
  id?: string;
  socket?: string;
  stoppedAt: string;
  agents: string[];
}

/** Remember the session `macs stop` ended (for `macs status`). */
export async function recordStoppedSession(
  paths: HomePaths,
  record: SessionRecord | undefined,
  now = new Date(),
): Promise<void> {
  const stopped: StoppedSessionRecord = {
    ...(record?.id ? { id: record.id } : {}),
    ...(record?.socket ? { socket: record.socket } : {}),
    stoppedAt: now.toISOString(),
    agents: record?.agents.map((a) => a.name) ?? [],
  };
  await ensurePrivateDir(paths.runtime);
  await writeFileAtomic(
    stoppedSessionFilePath(paths),
    `${JSON.stringify(stopped, null, 2)}\n`,
  );
}

/** The last stopped session, when there is one. */
export async function readStoppedSession(
  paths: HomePaths,
): Promise<StoppedSessionRecord | undefined> {
  try {
    const value = JSON.parse(
      await readFile(stoppedSessionFilePath(paths), 'utf8'),
    ) as Partial<StoppedSessionRecord>;
    return typeof value.stoppedAt === 'string'
      ? {
          stoppedAt: value.stoppedAt,
          agents: Array.isArray(value.agents) ? value.agents : [],
          ...(typeof value.id === 'string' ? { id: value.id } : {}),
          ...(typeof value.socket === 'string' ? { socket: value.socket } : {}),
        }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `macs stop` is about to end the session of this record: say so in the
 * record (read afresh, so nothing another command wrote meanwhile is lost).
 */
export async function markSessionStopping(
  paths: HomePaths,
  now = new Date(),
): Promise<void> {
  const record = await readSessionRecord(paths);
  if (record)
    await writeSessionRecord(paths, { ...record, stopping: now.toISOString() });
}

/**
 * Was the session with this id ended by `macs stop` (begun or done)? Read
 * when its tmux session is gone: the record says `stopping` while the stop
 * runs, and the stopped record names it once the stop is done (written
 * before the session record is removed, so one of the two is always seen).
 */
export async function wasSessionStopped(
  paths: HomePaths,
  id: string | undefined,
): Promise<boolean> {
  const record = await readSessionRecord(paths);
  if (record && record.id === id && record.stopping !== undefined) return true;
  if (id === undefined) return false;
  return (await readStoppedSession(paths))?.id === id;
}

export async function removeSessionRecord(paths: HomePaths): Promise<void> {
  await rm(sessionFilePath(paths), { force: true });
}

/** Change one agent's entry (read, modify, write atomically). */
export async function updateSessionAgent(
  paths: HomePaths,
  agent: string,
  change: (entry: SessionAgentRecord) => void,
): Promise<void> {
  const record = await readSessionRecord(paths);
  const entry = record?.agents.find((a) => a.name === agent);
  if (!record || !entry) return;
  change(entry);
  await writeSessionRecord(paths, record);
}

// ---- pins (`macs target`) --------------------------------------------------

/** A pane pinned to an agent name with `macs target`, on one tmux server. */
export interface PinnedPane {
  pane: string;
  /** The `-L` socket the pane id belongs to; absent for the default server. */
  socket?: string;
  pinnedAt: string;
}

export function targetsFilePath(paths: HomePaths): string {
  return path.join(paths.runtime, 'targets.json');
}

export async function readPins(
  paths: HomePaths,
): Promise<Record<string, PinnedPane>> {
  try {
    const value: unknown = JSON.parse(
      await readFile(targetsFilePath(paths), 'utf8'),
    );
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, PinnedPane>)
      : {};
  } catch {
    return {};
  }
}

/** Pin (or, with `pin` undefined, unpin) the pane of an agent. */
export async function writePin(
  paths: HomePaths,
  agent: string,
  pin: PinnedPane | undefined,
): Promise<void> {
  const pins = await readPins(paths);
  if (pin) pins[agent] = pin;
  else delete pins[agent];
  await ensurePrivateDir(paths.runtime);
  await writeFileAtomic(
    targetsFilePath(paths),
    `${JSON.stringify(pins, null, 2)}\n`,
  );
}

/** The pane pinned for an agent on this server, if any. */
export async function readPin(
  paths: HomePaths,
  agent: string,
  socket: string | undefined,
): Promise<string | undefined> {
  const pin = (await readPins(paths))[agent];
  if (!pin || (pin.socket ?? undefined) !== (socket ?? undefined))
    return undefined;
  return pin.pane;
}
