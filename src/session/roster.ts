/**
 * Which agents a bridge supervises (the bridge's Roster,
 * bridge/fleet/types.ts): the session's (`.macs/session.json`), else the
 * config's workers and controller, plus any pane tagged `@macs_agent` with
 * a name not yet known; their presets, their first messages, how their
 * panes are found, and the agents added since. One pane's roster is
 * pane-roster.ts.
 */
import type { ControllerPane } from '../bridge/route/answerer-backends.js';
import type {
  LaunchedSession,
  MultiAgent,
  Roster,
} from '../bridge/fleet/types.js';
import { detectPanePresetName, profileFromPreset } from '../bridge/profile.js';
import { getPreset } from '../config/presets/index.js';
import type { MacsConfig } from '../config/schema.js';
import { localWorkers } from '../config/workers.js';
import { loadPrompt } from '../config/prompts.js';
import { ConfigError, MacsError } from '../errors.js';
import type { HomePaths } from '../home/paths.js';
import { readBridge } from '../state/snapshot-files.js';
import type { TmuxClient } from '../tmux/client.js';
import { discoverPane, OWN_PANE_RULES } from './discover.js';
import { loadFirstMessage, prepareFirstMessage } from './first-message-text.js';
import { createTeammateFinder, type Lead } from './adopt-teammates.js';
import {
  readSessionRecord,
  updateSessionAgent,
  type AgentRole,
  type SessionRecord,
} from './record.js';

interface AgentEntry {
  name: string;
  role: AgentRole;
  preset: string;
  prompt?: { file: string; promptedAt?: string };
  /** A pane given in the config (used only without a session). */
  pane?: string;
  /** Its preset was detected from the pane's program: it follows that program. */
  followsProgram?: boolean;
}

export interface SessionRosterOptions {
  /** The session's record, when a `macs start` session runs. */
  record: SessionRecord | undefined;
  config: MacsConfig;
  tmux: TmuxClient;
  paths: HomePaths;
  /** The pane this bridge runs in (`$TMUX_PANE`), if any. */
  ownPane?: string;
}

/** The session as its record says now, for the usage reading. */
export async function readLaunchedSession(
  paths: HomePaths,
): Promise<LaunchedSession | undefined> {
  const record = await readSessionRecord(paths);
  if (!record) return undefined;
  return {
    id: record.id ?? record.createdAt,
    since: record.createdAt,
    agents: new Map(
      record.agents.map((a) => {
        const cwd = a.launch?.cwd ?? a.cwd;
        const env = a.launch?.env;
        return [
          a.name,
          {
            preset: a.preset,
            ...(cwd ? { cwd } : {}),
            ...(env ? { env } : {}),
          },
        ];
      }),
    ),
  };
}

/** The session's agents, else the config's workers and controller. */
function listAgents(
  record: SessionRecord | undefined,
  config: MacsConfig,
): AgentEntry[] {
  if (record)
    return record.agents.map((a) => ({
      name: a.name,
      role: a.role,
      preset: a.preset,
      ...(a.prompt ? { prompt: a.prompt } : {}),
    }));
  return [
    ...(config.controller
      ? [
          {
            name: config.controller.name,
            role: 'controller' as const,
            preset: config.controller.preset ?? 'generic',
            ...(config.controller.pane ? { pane: config.controller.pane } : {}),
          },
        ]
      : []),
    ...localWorkers(config).map((w) => ({
      name: w.name,
      role: 'worker' as const,
      preset: w.preset ?? 'generic',
      ...(w.pane ? { pane: w.pane } : {}),
    })),
  ];
}

/** Panes tagged `@macs_agent` with a name not in `known`. */
async function taggedAgents(
  tmux: TmuxClient,
  config: MacsConfig,
  known: ReadonlySet<string>,
): Promise<AgentEntry[]> {
  const found = new Map<string, AgentEntry>();
  for (const pane of await tmux.listPanes()) {
    const name = pane.agentTag;
    if (!name || known.has(name) || found.has(name)) continue;
    const role: AgentRole =
      config.controller?.name === name ? 'controller' : 'worker';
    const configured =
      role === 'controller'
        ? config.controller?.preset
        : localWorkers(config).find((w) => w.name === name)?.preset;
    found.set(name, {
      name,
      role,
      preset: configured ?? (await detectPanePresetName(pane, config)),
      ...(configured === undefined ? { followsProgram: true } : {}),
    });
  }
  return [...found.values()];
}

/**
 * The first message of an agent the session prompts: its prompt file, else
 * the worker protocol (workers without hooks) or, for a controller wired to
 * `macs mcp`, prompts/controller-mcp.md (docs/mcp.md).
 */
async function firstMessageOf(
  entry: AgentEntry,
  paths: HomePaths,
): Promise<MultiAgent['firstMessage']> {
  if (!entry.prompt) return undefined;
  const { role } = entry;
  const message = await loadFirstMessage(
    entry.name,
    entry.prompt.file,
    role,
  ).catch(async () => {
    const prompt = await loadPrompt(
      role === 'worker' ? 'worker' : 'controller-mcp',
      { home: paths.home },
    );
    return prompt
      ? prepareFirstMessage(entry.name, prompt.text, undefined, role)
      : undefined;
  });
  if (!message) return undefined;
  return {
    ...message,
    sent: Boolean(entry.prompt.promptedAt),
    // `macs restart` keeps `promptedAt` when it continues the conversation
    // and drops it when it starts a new one; it records the program it
    // started (a respawn by hand is a new one).
    heldByConversation: async (pid) => {
      const now = (await readSessionRecord(paths))?.agents.find(
        (a) => a.name === entry.name,
      );
      if (now?.prompt?.restarting) return 'pending';
      return Boolean(
        now?.prompt?.promptedAt && pid !== undefined && now.pid === pid,
      );
    },
  };
}

async function toAgent(
  entry: AgentEntry,
  { config, paths }: { config: MacsConfig; paths: HomePaths },
): Promise<MultiAgent> {
  const preset = getPreset(entry.preset, config.presets);
  const firstMessage = await firstMessageOf(entry, paths);
  return {
    name: entry.name,
    role: entry.role,
    profile: profileFromPreset(preset),
    ...(entry.followsProgram ? { followsProgram: true } : {}),
    ...(firstMessage ? { firstMessage } : {}),
  };
}

/** Does this bridge run the interactive backend (which types into the controller)? */
function runsInteractive(config: MacsConfig): boolean {
  return (
    config.backend === 'interactive' ||
    Object.values(config.routes).some((chain) =>
      chain.includes('interactive'),
    ) ||
    config.fallback.includes('interactive')
  );
}

/**
 * The roster of `macs bridge --all`: every agent of the session (else of
 * the config) and the tagged panes; agents added later (`macs add`, whose
 * record names the preset, then newly tagged panes) are found as they
 * appear. Throws when there is no agent at all, or when another bridge
 * runs for them.
 */
export async function createSessionRoster(
  options: SessionRosterOptions,
): Promise<Roster> {
  const { record, config, tmux, paths } = options;
  const known = listAgents(record, config);
  const entries = [
    ...known,
    ...(await taggedAgents(tmux, config, new Set(known.map((e) => e.name)))),
  ];
  if (entries.length === 0) {
    throw new ConfigError(
      'no agents to supervise: no session in .macs/session.json, no agents in the config, and no pane tagged @macs_agent',
      {
        hint: 'start a session with `macs start`, or tag a pane: tmux set-option -p -t %3 @macs_agent worker-1',
      },
    );
  }
  refuseSecondBridge(entries, { record, paths, ownPane: options.ownPane });
  const agents = await Promise.all(
    entries.map((e) => toAgent(e, { config, paths })),
  );
  const configuredPane = new Map(
    entries.flatMap((e) => (e.pane ? [[e.name, e.pane] as const] : [])),
  );
  const resolvePane: Roster['resolvePane'] = async (
    agent,
    { ownPaneOnly = false } = {},
  ) => {
    const given = configuredPane.get(agent.name);
    if (given) return given;
    const program =
      getPreset(agent.profile.preset, config.presets).program || undefined;
    return (
      await discoverPane({
        agent: agent.name,
        tmux,
        paths,
        ...(program ? { program } : {}),
        ...(ownPaneOnly ? { rules: OWN_PANE_RULES } : {}),
      })
    ).pane;
  };
  const teammateFinder = createTeammateFinder({ tmux, paths });
  const controllerAgent = agents.find((a) => a.role === 'controller');
  const controller: ControllerPane | undefined =
    controllerAgent && runsInteractive(config)
      ? { pane: await resolvePane(controllerAgent), ...controllerAgent.profile }
      : undefined;
  return {
    agents,
    resolvePane,
    ...(controller ? { controller } : {}),
    ...(record?.id ? { session: record.id } : {}),
    ...(record ? { sessionSince: record.createdAt } : {}),
    findNewAgents: async (seen) => {
      const now = await readSessionRecord(paths);
      const current =
        now && now.id === record?.id ? listAgents(now, config) : [];
      const added = current.filter((e) => !seen.has(e.name));
      // Claude Code teammates of the supervised leads (session/adopt-teammates.ts).
      const leads: Lead[] = (record ? current : known).filter(
        (e) =>
          seen.has(e.name) &&
          getPreset(e.preset, config.presets).hooks === 'claude',
      );
      const teammates: AgentEntry[] = (
        await teammateFinder.find(leads, seen)
      ).map((t) => ({ name: t.agent, role: 'worker', preset: t.preset }));
      const names = new Set([
        ...seen,
        ...added.map((e) => e.name),
        ...teammates.map((e) => e.name),
      ]);
      const found = [
        ...added,
        ...teammates,
        ...(await taggedAgents(tmux, config, names)),
      ];
      return Promise.all(found.map((e) => toAgent(e, { config, paths })));
    },
    onPrompted: (agent) =>
      updateSessionAgent(paths, agent, (entry) => {
        if (entry.prompt) entry.prompt.promptedAt = new Date().toISOString();
      }),
    launched: () => readLaunchedSession(paths),
  };
}

/**
 * One bridge per agent: a `macs bridge --all` whose agents another live
 * bridge supervises (its pid in their locks) would wait for them forever, so
 * it stops at once naming that bridge, as `macs start` refuses a session
 * already running. The session's own bridge window (`ownPane`) is exempt:
 * `macs start --resume` starts a new bridge there while the one it replaces
 * lets go.
 */
function refuseSecondBridge(
  entries: readonly AgentEntry[],
  {
    record,
    paths,
    ownPane,
  }: {
    record: SessionRecord | undefined;
    paths: HomePaths;
    ownPane: string | undefined;
  },
): void {
  if (ownPane && record && ownPane === record.panes.bridge) return;
  const holders = new Map<number, string[]>();
  for (const { name } of entries) {
    const { running, pid } = readBridge(paths.state, name);
    if (!running || pid === null || pid === process.pid) continue;
    holders.set(pid, [...(holders.get(pid) ?? []), name]);
  }
  if (holders.size === 0) return;
  const pids = [...holders.keys()];
  throw new MacsError(
    `a bridge is already running for ${paths.home}: ${pids.map((pid) => `pid ${pid} (${(holders.get(pid) ?? []).join(', ')})`).join(', ')}`,
    {
      hint: `one bridge per agent: leave them to it, or stop it first (kill ${pids.join(' ')})${record ? "; `macs start --resume` restarts the session's bridge" : ''}`,
    },
  );
}
