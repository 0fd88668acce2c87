/**
 * `.macs/teammates.json`: the Claude Code teammates macs adopted (docs/hooks.md
 * "Agent teams"). A teammate is a Claude Code a supervised lead spawned in a
 * pane of its own (agent teams, tmux mode); macs supervises it as an agent of
 * its own, shown as `<lead>/<teammate>` at the doors.
 *
 * Names: `/` is the hub's separator (`<host>/<agent>`) and cannot be part of
 * a file name, so the agent's own name (its state, events, logs, the
 * `@macs_agent` tag, what commands take) is `<lead>.<teammate>`, a valid agent
 * name; this file says which agents are teammates, and of which lead, so the
 * doors show `<lead>/<teammate>`. Written by the session's bridge (one
 * writer); read by `macs hook` (a teammate's hooks carry its lead's name) and
 * the status snapshot.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ensurePrivateDir, writeFileAtomic } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';
import { isValidAgentName } from '../protocol/ids.js';

export interface TeammateRecord {
  /** Its agent name: `<lead>.<teammate>`. */
  agent: string;
  /** The supervised agent that spawned it. */
  lead: string;
  /** Its name in the team (`--agent-name`). */
  name: string;
  /** Claude Code's team (`--team-name`), when given. */
  team?: string;
  /** The pane it runs in. */
  pane: string;
  /** The lead's conversation it was spawned from (`--parent-session-id`). */
  parentSession: string;
  /** When macs adopted it (ISO). */
  adoptedAt: string;
  /** When its pane went (ISO): it is over. */
  endedAt?: string;
}

export function teammatesPath(paths: HomePaths): string {
  return path.join(paths.runtime, 'teammates.json');
}

/**
 * A teammate's name at the doors: `<lead>/<teammate>` (beside the hub's
 * `<host>/<agent>`: a host is a configured host, a lead a local agent).
 */
export function shownTeammateName(
  record: Pick<TeammateRecord, 'lead' | 'name'>,
): string {
  return `${record.lead}/${record.name}`;
}

/**
 * The agent name of `lead`'s teammate `name`: `<lead>.<name>`, the name's
 * characters outside `[A-Za-z0-9._-]` made `-`; undefined when no valid agent
 * name comes of it (too long, empty).
 */
export function teammateAgentName(
  lead: string,
  name: string,
): string | undefined {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '-');
  const agent = `${lead}.${safe}`;
  return safe && isValidAgentName(agent) ? agent : undefined;
}

function isRecord(value: unknown): value is TeammateRecord {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.agent === 'string' &&
    isValidAgentName(v.agent) &&
    typeof v.lead === 'string' &&
    typeof v.name === 'string' &&
    typeof v.pane === 'string' &&
    typeof v.parentSession === 'string' &&
    typeof v.adoptedAt === 'string'
  );
}

/** Every teammate adopted in this home (none when the file is missing or unreadable). */
export async function readTeammates(
  paths: HomePaths,
): Promise<TeammateRecord[]> {
  try {
    const value = JSON.parse(await readFile(teammatesPath(paths), 'utf8')) as {
      teammates?: unknown;
    };
    return Array.isArray(value.teammates)
      ? value.teammates.filter(isRecord)
      : [];
  } catch {
    return [];
  }
}

/** Save the list (the session's bridge is its one writer). */
export async function writeTeammates(
  paths: HomePaths,
  teammates: readonly TeammateRecord[],
): Promise<void> {
  await ensurePrivateDir(paths.runtime);
  await writeFileAtomic(
    teammatesPath(paths),
    `${JSON.stringify({ teammates }, null, 2)}\n`,
  );
}

/**
 * Pure: the live teammate of `lead` in `pane`, if any: a hook that carries
 * the lead's name (the teammate runs with the lead's `--settings`) but runs
 * in that pane speaks for the teammate.
 */
export function teammateInPane(
  teammates: readonly TeammateRecord[],
  lead: string,
  pane: string | undefined,
): TeammateRecord | undefined {
  if (!pane) return undefined;
  return teammates.find(
    (t) => t.lead === lead && t.pane === pane && !t.endedAt,
  );
}

/**
 * Pure: agents in their order, each lead's teammates right after it (in
 * theirs); a teammate whose lead is not listed keeps its place.
 */
export function groupUnderLeads<
  T extends { name: string; teammate?: { lead: string } | undefined },
>(agents: readonly T[]): T[] {
  const names = new Set(agents.map((a) => a.name));
  const led = (a: T) =>
    a.teammate && names.has(a.teammate.lead) ? a.teammate.lead : undefined;
  const out: T[] = [];
  for (const a of agents) {
    if (led(a)) continue;
    out.push(a, ...agents.filter((t) => led(t) === a.name));
  }
  return out;
}

/**
 * The agent name of the teammate shown as `shown` (`<lead>/<teammate>`),
 * when this home adopted one so; undefined otherwise (a `<host>/<agent>`).
 */
export async function teammateNamed(
  paths: HomePaths,
  shown: string,
): Promise<string | undefined> {
  return (await readTeammates(paths)).find(
    (t) => shownTeammateName(t) === shown,
  )?.agent;
}
