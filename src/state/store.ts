import { open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { emptyDedupState } from '../protocol/dedup.js';
import { AgentError } from '../errors.js';
import { ensurePrivateDir, FILE_MODE, writeFileAtomic } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';
import { recoverAgentState, type RebuildSummary } from './rebuild.js';
import type { AgentStateFile } from './types.js';
import { isProcessAlive } from './process.js';

export function stateFilePath(paths: HomePaths, agent: string): string {
  return path.join(paths.state, `${agent}.json`);
}

export function freshAgentState(
  agent: string,
  preset: string,
  now = new Date(),
): AgentStateFile {
  return {
    version: 1,
    agent,
    preset,
    state: 'unknown',
    stateSource: 'activity',
    stateSince: now.toISOString(),
    logOffset: 0,
    requests: {},
    recent: [],
    dedup: emptyDedupState(),
    counters: { detected: 0, delivered: 0, duplicates: 0, malformed: 0 },
    paused: false,
    updatedAt: now.toISOString(),
  };
}

export type LoadStateResult =
  | { type: 'loaded'; state: AgentStateFile }
  | { type: 'fresh'; state: AgentStateFile }
  | {
      type: 'corrupt';
      /** Rebuilt from the event log (recoverAgentState). */
      state: AgentStateFile;
      movedTo: string;
      error: string;
      /** What the rebuild found; absent when it failed (`state` is fresh). */
      rebuilt?: RebuildSummary;
      rebuildError?: string;
    };

/**
 * readAgentState, each agent's file read once however often it is asked
 * for (a hook call asks for its agent's state in two places).
 */
export function agentStatesReadOnce(
  paths: HomePaths,
): (agent: string) => Promise<AgentStateFile | undefined> {
  const reads = new Map<string, Promise<AgentStateFile | undefined>>();
  return (agent) => {
    const read = reads.get(agent) ?? readAgentState(paths, agent);
    reads.set(agent, read);
    return read;
  };
}

/** Read an agent's state file without taking its lock (status, inbox). */
export async function readAgentState(
  paths: HomePaths,
  agent: string,
): Promise<AgentStateFile | undefined> {
  try {
    const value = JSON.parse(
      await readFile(stateFilePath(paths, agent), 'utf8'),
    ) as AgentStateFile;
    return value.version === 1 && value.agent === agent ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Load an agent's state. A missing file gives a fresh state; an unreadable
 * one is moved aside (never deleted) and the state is rebuilt from the
 * agent's event log (rebuild.ts), for the caller to report.
 */
export async function loadAgentState(
  paths: HomePaths,
  agent: string,
  preset: string,
): Promise<LoadStateResult> {
  const file = stateFilePath(paths, agent);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { type: 'fresh', state: freshAgentState(agent, preset) };
  }
  try {
    const value = JSON.parse(text) as Partial<AgentStateFile>;
    if (
      value.version !== 1 ||
      value.agent !== agent ||
      typeof value.logOffset !== 'number'
    ) {
      throw new Error('not a macs state file for this agent');
    }
    const base = freshAgentState(agent, preset);
    const state: AgentStateFile = {
      ...base,
      ...value,
      requests: value.requests ?? {},
      recent: value.recent ?? [],
      dedup: value.dedup ?? base.dedup,
      counters: { ...base.counters, ...value.counters },
    };
    return { type: 'loaded', state };
  } catch (error) {
    const movedTo = `${file}.corrupt-${Date.now()}`;
    await rename(file, movedTo).catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    const fresh = freshAgentState(agent, preset);
    try {
      const { state, summary } = await recoverAgentState(paths, fresh);
      return {
        type: 'corrupt',
        state,
        movedTo,
        error: reason,
        rebuilt: summary,
      };
    } catch (rebuildError) {
      return {
        type: 'corrupt',
        state: fresh,
        movedTo,
        error: reason,
        rebuildError:
          rebuildError instanceof Error
            ? rebuildError.message
            : String(rebuildError),
      };
    }
  }
}

/** State folders already made private by this process. */
const readyStateDirs = new Set<string>();

export async function saveAgentState(
  paths: HomePaths,
  state: AgentStateFile,
): Promise<void> {
  if (!readyStateDirs.has(paths.state)) {
    await ensurePrivateDir(paths.state);
    readyStateDirs.add(paths.state);
  }
  state.updatedAt = new Date().toISOString();
  // Compact: this is written on every request stage, on the detection path.
  await writeFileAtomic(
    stateFilePath(paths, state.agent),
    `${JSON.stringify(state)}\n`,
  );
}

/**
 * The owner lock: one bridge per agent. `state/<agent>.lock` holds the pid of
 * the bridge supervising the agent; a lock left by a dead process (a
 * `kill -9`) is taken over. Two bridges on one agent would deliver twice.
 */
export async function acquireAgentLock(
  paths: HomePaths,
  agent: string,
): Promise<() => Promise<void>> {
  await ensurePrivateDir(paths.state);
  const file = path.join(paths.state, `${agent}.lock`);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const handle = await open(file, 'wx', FILE_MODE);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return async () => {
        await rm(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number.parseInt(
        await readFile(file, 'utf8').catch(() => ''),
        10,
      );
      if (
        Number.isFinite(pid) &&
        pid > 0 &&
        pid !== process.pid &&
        isProcessAlive(pid)
      ) {
        throw new AgentError(
          `a bridge for agent '${agent}' is already running (pid ${pid})`,
          {
            hint: `stop it first (kill ${pid}), or supervise another agent`,
          },
        );
      }
      await rm(file, { force: true });
    }
  }
  throw new AgentError(
    `could not take the lock for agent '${agent}' (${file})`,
  );
}
