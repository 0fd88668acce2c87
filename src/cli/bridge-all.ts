/**
 * `macs bridge --all`: every agent of the session (its record, else the
 * config's agents), plus any pane tagged `@macs_agent`, in one bridge
 * (bridge-runtime.ts); agents added later are taken on as they appear.
 */
import type { ControllerPane } from '../bridge/route/answerer-backends.js';
import type { MultiAgent } from '../bridge/fleet/types.js';
import { detectPanePresetName, profileFromPreset } from '../bridge/profile.js';
import { getPreset } from '../config/presets/index.js';
import type { MacsConfig } from '../config/schema.js';
import { localWorkers } from '../config/workers.js';
import { loadPrompt } from '../config/prompts.js';
import { ConfigError, MacsError } from '../errors.js';
import { discoverPane, OWN_PANE_RULES } from '../session/discover.js';
import {
  loadFirstMessage,
  prepareFirstMessage,
} from '../session/first-message.js';
import {
  readSessionRecord,
  updateSessionAgent,
  type AgentRole,
  type SessionRecord,
} from '../session/record.js';
import { readBridge } from '../state/snapshot-files.js';
import type { TmuxClient } from '../tmux/client.js';
import { impliedBackend, type BridgeOptions } from './bridge-options.js';
import { runBridgeRuntime } from './bridge-runtime.js';
import {
  createContext,
  createLongLivedTmuxClient,
  type CommandContext,
} from './common.js';
import type { CliDeps } from './options.js';

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

/**
 * The agents to supervise: the session's (`.macs/session.json`), else the
 * config's workers and controller; plus any pane tagged `@macs_agent` on the
 * server with a name not yet known.
 */
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
 * One bridge per agent: a `macs bridge --all` whose agents another live
 * bridge supervises (its pid in their locks) would wait for them forever, so
 * it stops at once naming that bridge, as `macs start` refuses a session
 * already running. The session's own bridge window is exempt: `macs start
 * --resume` starts a new bridge there while the one it replaces lets go.
 */
function refuseSecondBridge(
  entries: readonly AgentEntry[],
  record: SessionRecord | undefined,
  ctx: CommandContext,
  deps: CliDeps,
): void {
  const ownPane = deps.env.TMUX_PANE;
  if (ownPane && record && ownPane === record.panes.bridge) return;
  const holders = new Map<number, string[]>();
  for (const { name } of entries) {
    const { running, pid } = readBridge(ctx.paths.state, name);
    if (!running || pid === null || pid === process.pid) continue;
    holders.set(pid, [...(holders.get(pid) ?? []), name]);
  }
  if (holders.size === 0) return;
  const pids = [...holders.keys()];
  throw new MacsError(
    `a bridge is already running for ${ctx.paths.home}: ${pids.map((pid) => `pid ${pid} (${(holders.get(pid) ?? []).join(', ')})`).join(', ')}`,
    {
      hint: `one bridge per agent: leave them to it, or stop it first (kill ${pids.join(' ')})${record ? "; `macs start --resume` restarts the session's bridge" : ''}`,
    },
  );
}

/**
 * `macs bridge --all`: supervise every agent of the session from this one
 * process, with one shared backend and one deliverer.
 */
export async function runBridgeAll(
  opts: BridgeOptions,
  deps: CliDeps,
): Promise<number> {
  if (opts.workerPane)
    throw new ConfigError('--all and --worker-pane do not go together', {
      hint: '--all supervises every agent of the session; --worker-pane one pane',
    });
  const ctx = createContext(opts, deps, { create: true });
  const record = await readSessionRecord(ctx.paths);
  const socket = opts.tmuxSocket ?? record?.socket;
  const tmux = createLongLivedTmuxClient(socket, deps, ctx.log);
  try {
    return await bridgeAllWith(opts, deps, {
      ctx,
      record,
      socket,
      tmux,
    });
  } finally {
    await tmux.close();
  }
}

interface BridgeAllSetup {
  ctx: CommandContext;
  record: SessionRecord | undefined;
  socket: string | undefined;
  tmux: TmuxClient;
}

async function bridgeAllWith(
  opts: BridgeOptions,
  deps: CliDeps,
  { ctx, record, socket, tmux }: BridgeAllSetup,
): Promise<number> {
  // As for one agent: `--exec` alone means the exec backend.
  const backendFlag = impliedBackend(opts) ?? record?.backend;
  const { config } = await ctx.loadConfig({
    ...(backendFlag ? { backend: backendFlag } : {}),
    ...(opts.split === false ? { noSplit: true } : {}),
    ...(opts.heuristics ? { heuristics: true } : {}),
    ...(opts.nonInteractive ? { nonInteractive: true } : {}),
  });

  let entries = listAgents(record, config);
  entries = [
    ...entries,
    ...(await taggedAgents(tmux, config, new Set(entries.map((e) => e.name)))),
  ];
  if (entries.length === 0) {
    throw new ConfigError(
      'no agents to supervise: no session in .macs/session.json, no agents in the config, and no pane tagged @macs_agent',
      {
        hint: 'start a session with `macs start`, or tag a pane: tmux set-option -p -t %3 @macs_agent worker-1',
      },
    );
  }

  refuseSecondBridge(entries, record, ctx, deps);

  const toAgent = async (entry: AgentEntry): Promise<MultiAgent> => {
    const preset = getPreset(entry.preset, config.presets);
    let firstMessage: MultiAgent['firstMessage'];
    // Workers without hooks get the worker protocol; a controller wired to
    // `macs mcp` gets prompts/controller-mcp.md (docs/mcp.md).
    if (entry.prompt) {
      const { role } = entry;
      const message = await loadFirstMessage(
        entry.name,
        entry.prompt.file,
        role,
      ).catch(async () => {
        const prompt = await loadPrompt(
          role === 'worker' ? 'worker' : 'controller-mcp',
          { home: ctx.paths.home },
        );
        return prompt
          ? prepareFirstMessage(entry.name, prompt.text, undefined, role)
          : undefined;
      });
      if (message)
        firstMessage = {
          ...message,
          sent: Boolean(entry.prompt.promptedAt),
          // `macs restart` keeps `promptedAt` when it continues the
          // conversation and drops it when it starts a new one; it records
          // the program it started (a respawn by hand is a new one).
          heldByConversation: async (pid) => {
            const now = (await readSessionRecord(ctx.paths))?.agents.find(
              (a) => a.name === entry.name,
            );
            if (now?.prompt?.restarting) return 'pending';
            return Boolean(
              now?.prompt?.promptedAt && pid !== undefined && now.pid === pid,
            );
          },
        };
    }
    return {
      name: entry.name,
      role: entry.role,
      profile: profileFromPreset(preset),
      ...(entry.followsProgram ? { followsProgram: true } : {}),
      ...(firstMessage ? { firstMessage } : {}),
    };
  };
  const agents = await Promise.all(entries.map(toAgent));
  const programOf = (agent: MultiAgent) =>
    getPreset(agent.profile.preset, config.presets).program || undefined;
  const configuredPane = new Map(
    entries.flatMap((e) => (e.pane ? [[e.name, e.pane] as const] : [])),
  );
  const resolvePane = async (
    agent: MultiAgent,
    { ownPaneOnly = false }: { ownPaneOnly?: boolean } = {},
  ) => {
    const given = configuredPane.get(agent.name);
    if (given) return given;
    const program = programOf(agent);
    return (
      await discoverPane({
        agent: agent.name,
        tmux,
        paths: ctx.paths,
        ...(program ? { program } : {}),
        ...(ownPaneOnly ? { rules: OWN_PANE_RULES } : {}),
      })
    ).pane;
  };

  // The interactive backend types into the controller's pane.
  const controllerAgent = agents.find((a) => a.role === 'controller');
  let controller: ControllerPane | undefined;
  if (
    controllerAgent &&
    (config.backend === 'interactive' ||
      Object.values(config.routes).some((chain) =>
        chain.includes('interactive'),
      ) ||
      config.fallback.includes('interactive'))
  ) {
    controller = {
      pane: await resolvePane(controllerAgent),
      ...controllerAgent.profile,
    };
  }
  return runBridgeRuntime({
    opts,
    deps,
    ctx,
    tmux,
    config,
    agents,
    resolvePane,
    ...(controller ? { controller } : {}),
    ...(record?.id ? { session: record.id } : {}),
    ...(record ? { sessionSince: record.createdAt } : {}),
    // Agents added to the session since (`macs add`: its record names the
    // preset), then any other pane tagged @macs_agent.
    findNewAgents: async (known) => {
      const now = await readSessionRecord(ctx.paths);
      const added =
        now && now.id === record?.id
          ? listAgents(now, config).filter((e) => !known.has(e.name))
          : [];
      const seen = new Set([...known, ...added.map((e) => e.name)]);
      return Promise.all(
        [...added, ...(await taggedAgents(tmux, config, seen))].map(toAgent),
      );
    },
    onPrompted: (agent) =>
      updateSessionAgent(ctx.paths, agent, (entry) => {
        if (entry.prompt) entry.prompt.promptedAt = new Date().toISOString();
      }),
    logFields: { mode: 'all' },
    banner: (bridge) => [
      `macs bridge --all: supervising ${agents.length} agents with the ${config.backend} backend in ${ctx.paths.home}${socket ? ` (tmux -L ${socket})` : ''}`,
      ...bridge
        .snapshot()
        .map(
          (slot) =>
            `  ${slot.agent}: ${slot.status === 'running' ? `pane ${slot.pane ?? '?'}` : slot.status}${slot.problem ? ` (${slot.problem})` : ''}`,
        ),
    ],
  });
}
