/**
 * Reading what each agent's model calls used (docs/usage.md): every
 * USAGE_POLL_MS the bridge reads what the agents' own records gained
 * (Claude Code's transcript, Codex's rollouts, Gemini CLI's session files),
 * appends it to `.macs/usage/<agent>.jsonl`, rewrites the agent's totals for
 * status, and hands the totals to the budget check (usage/budget.ts).
 * Nothing here reads a screen: a figure an agent does not record is unknown.
 */
import path from 'node:path';
import type { Budget, MacsConfig } from '../../config/schema.js';
import { errorMessage } from '../../errors.js';
import type { HomePaths } from '../../home/paths.js';
import { agentCodexHome } from '../../hooks/codex-home.js';
import type { Logger } from '../../log/logger.js';
import { readObservation } from '../../state/hook-files.js';
import {
  replayEntry,
  type LedgerEntry,
  type SourceCursor,
} from '../../usage/account.js';
import { collectUsage } from '../../usage/collect.js';
import {
  appendLedger,
  readLedger,
  totalsOf,
  writeTotals,
  type UsageFile,
} from '../../usage/usage-ledger.js';
import {
  findCodexRollouts,
  findGeminiSessions,
  geminiDirOf,
} from '../../usage/sources.js';
import type { UsageSourceKind } from '../../usage/types.js';

/** How often the agents' records are read. */
export const USAGE_POLL_MS = 2000;
/** A Gemini session file counts when modified since the agent's start, less this. */
const GEMINI_START_SLACK_MS = 60_000;

/** What the watch needs to know of an agent. */
export interface UsageAgent {
  name: string;
  preset: string;
  pane?: string;
  /** Its working folder and environment as launched (Gemini's records). */
  cwd?: string;
  env?: Readonly<Record<string, string>>;
  budget?: Budget;
}

/** The session the budgets count in. */
export interface UsageSession {
  /** Its id (budget levels are claimed once per session). */
  id: string;
  /** Usage counts from here on (ISO); undefined: all of it. */
  since?: string;
}

export interface UsageWatchOptions {
  paths: HomePaths;
  config: MacsConfig;
  log: Logger;
  /** The agents and the session, read at every poll. */
  describe: () => Promise<{ agents: UsageAgent[]; session: UsageSession }>;
  /** Told the totals of every agent after a poll that changed any. */
  onTotals: (
    totals: ReadonlyMap<string, UsageFile>,
    agents: readonly UsageAgent[],
    session: UsageSession,
  ) => Promise<void>;
  pollMs?: number;
}

export interface UsageWatch {
  start(): void;
  /** One reading now (tests; also the first reading at start). */
  poll(): Promise<void>;
  stop(): Promise<void>;
}

interface Tracked {
  kind: UsageSourceKind;
  cursors: Map<string, SourceCursor>;
  files: Set<string>;
  /** Entries of the session (since its start), for its totals. */
  entries: LedgerEntry[];
  loadedSince: string | undefined;
  problems: Set<string>;
}

/** The kind of records a preset's agent writes; undefined: none macs reads. */
export function usageKindOf(preset: string): UsageSourceKind | undefined {
  return preset === 'claude' || preset === 'codex' || preset === 'gemini'
    ? preset
    : undefined;
}

export function createUsageWatch(options: UsageWatchOptions): UsageWatch {
  const { paths, log } = options;
  const tracked = new Map<string, Tracked>();
  const startedAt = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  let first = true;

  async function load(
    agent: UsageAgent,
    kind: UsageSourceKind,
    since: string | undefined,
  ): Promise<Tracked> {
    const known = tracked.get(agent.name);
    if (known && known.loadedSince === since) return known;
    const entries = await readLedger(paths, agent.name);
    const cursors = new Map<string, SourceCursor>();
    for (const entry of entries) replayEntry(cursors, entry);
    const t: Tracked = {
      kind,
      cursors,
      files: new Set(cursors.keys()),
      entries: entries.filter((e) => !since || e.ts >= since),
      loadedSince: since,
      problems: new Set(),
    };
    tracked.set(agent.name, t);
    return t;
  }

  /** The record files of an agent now (besides those read before). */
  async function filesOf(
    agent: UsageAgent,
    kind: UsageSourceKind,
    session: UsageSession,
  ): Promise<string[]> {
    switch (kind) {
      case 'claude': {
        const file = (await readObservation(paths, agent.name))?.transcriptPath;
        return file ? [file] : [];
      }
      case 'codex':
        return findCodexRollouts(
          path.join(agentCodexHome(paths.runtime, agent.name), 'sessions'),
        );
      case 'gemini': {
        const dir = geminiDirOf(agent.env ?? {}) ?? geminiDirOf(process.env);
        if (!dir || !agent.cwd) return [];
        const since = session.since ? Date.parse(session.since) : startedAt;
        return findGeminiSessions(
          dir,
          agent.cwd,
          since - GEMINI_START_SLACK_MS,
        );
      }
      default: {
        const never: never = kind;
        throw new Error(`unexpected usage source ${String(never)}`);
      }
    }
  }

  async function pollAgent(
    agent: UsageAgent,
    session: UsageSession,
  ): Promise<boolean> {
    const kind = usageKindOf(agent.preset);
    if (!kind) return false;
    const fresh = !tracked.has(agent.name);
    const t = await load(agent, kind, session.since);
    // The totals of this session at once, not those a last session left.
    if (fresh && t.files.size > 0)
      await writeTotals(paths, totalsOf(agent.name, t.entries, new Date()));
    for (const file of await filesOf(agent, kind, session)) t.files.add(file);
    const { entries, problems } = await collectUsage(
      kind,
      [...t.files],
      t.cursors,
      new Date(),
    );
    for (const p of problems)
      if (!t.problems.has(p.file)) {
        t.problems.add(p.file);
        log.debug(
          { agent: agent.name, file: p.file, reason: p.reason },
          'usage record not read',
        );
      }
    if (entries.length === 0) return false;
    await appendLedger(paths, agent.name, entries);
    t.entries.push(
      ...entries.filter((e) => !session.since || e.ts >= session.since),
    );
    await writeTotals(paths, totalsOf(agent.name, t.entries, new Date()));
    return true;
  }

  async function poll(): Promise<void> {
    const { agents, session } = await options.describe();
    let changed = first;
    first = false;
    for (const agent of agents) {
      if (stopped) return;
      try {
        if (await pollAgent(agent, session)) changed = true;
      } catch (error) {
        log.warn(
          { agent: agent.name, err: errorMessage(error) },
          'reading usage failed',
        );
      }
    }
    if (!changed) return;
    const totals = new Map<string, UsageFile>();
    for (const agent of agents) {
      const t = tracked.get(agent.name);
      if (t)
        totals.set(agent.name, totalsOf(agent.name, t.entries, new Date()));
    }
    await options.onTotals(totals, agents, session);
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = poll()
        .catch((error: unknown) =>
          log.warn({ err: errorMessage(error) }, 'usage poll failed'),
        )
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, options.pollMs ?? USAGE_POLL_MS);
    timer.unref();
  }

  return {
    start() {
      schedule();
    },
    poll,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
