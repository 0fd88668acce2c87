/**
 * The tmux side of `macs start`: the session's windows and panes as
 * session-layout.ts describes them. Every pane is created running a placeholder so
 * it can be tagged and piped into its log before its real program starts
 * (launch.ts); the bridge and status windows get their programs last, once
 * the session record they read is written.
 */
import type { HomePaths } from '../home/paths.js';
import { TmuxError } from '../errors.js';
import type { TmuxClient } from '../tmux/client.js';
import {
  buildNewSessionArgs,
  buildNewWindowArgs,
  buildRespawnPaneArgs,
  buildSelectLayoutArgs,
  buildSetHookArgs,
  buildSetWindowOptionArgs,
  buildSplitWindowArgs,
} from '../tmux/session-args.js';
import {
  AGENTS_WINDOW,
  BRIDGE_WINDOW,
  PANE_BORDER_FORMAT,
  PLACEHOLDER_COMMAND,
  SESSION_HEIGHT,
  SESSION_WIDTH,
  STATUS_WINDOW,
  buildBridgeCommand,
  buildStatusCommand,
  STATUS_HOOK,
} from './session-layout.js';
import { SESSION_NAME } from './record.js';

/** The panes of a new session, each still running the placeholder. */
export interface SessionPanes {
  /** One per agent, in the order of the agents. */
  agents: string[];
  bridge: string;
  status: string;
}

/** Run a tmux command that prints the id of the pane it made. */
export async function paneOutput(
  tmux: TmuxClient,
  args: string[],
): Promise<string> {
  const pane = (await tmux.command(args)).trim();
  if (!/^%\d+$/.test(pane))
    throw new TmuxError(
      `tmux ${args[0] ?? ''} did not print a pane id: '${pane}'`,
      { args },
    );
  return pane;
}

/**
 * The session with its agents window and the first agent's pane. Once this
 * returns, a failure later on has a session to remove.
 */
export function newAgentsSession(
  tmux: TmuxClient,
  cwd: string,
): Promise<string> {
  return paneOutput(
    tmux,
    buildNewSessionArgs({
      session: SESSION_NAME,
      window: AGENTS_WINDOW,
      width: SESSION_WIDTH,
      height: SESSION_HEIGHT,
      cwd,
      command: PLACEHOLDER_COMMAND,
    }),
  );
}

/**
 * The rest of the session around the first agent's pane: a pane for each
 * other agent (in `cwds`, tiled after each split so the next one has room),
 * the bridge and status windows, and the window options (remain-on-exit,
 * the agents' border with their names). Two tmux calls: the panes, in order
 * (each maker prints its pane's id on a line of its own), then the options.
 */
export async function addSessionPanes(
  tmux: TmuxClient,
  paths: HomePaths,
  firstPane: string,
  cwds: readonly string[],
): Promise<SessionPanes> {
  const makers: string[][] = [];
  for (const cwd of cwds) {
    makers.push(
      buildSplitWindowArgs({
        pane: firstPane,
        cwd,
        command: PLACEHOLDER_COMMAND,
      }),
      buildSelectLayoutArgs(firstPane, 'tiled'),
    );
  }
  for (const window of [BRIDGE_WINDOW, STATUS_WINDOW])
    makers.push(
      buildNewWindowArgs({
        session: SESSION_NAME,
        window,
        cwd: paths.home,
        command: PLACEHOLDER_COMMAND,
      }),
    );
  const printed = (await tmux.chain(makers)).split('\n').filter(Boolean);
  const made = printed.filter((line) => /^%\d+$/.test(line));
  const bridgePane = made[cwds.length];
  const statusPane = made[cwds.length + 1];
  if (
    made.length !== printed.length ||
    bridgePane === undefined ||
    statusPane === undefined
  )
    throw new TmuxError(
      `tmux did not print a pane id for each new pane: '${printed.join(' ')}'`,
      { args: makers.flat() },
    );
  await tmux.chain([
    ...[firstPane, bridgePane, statusPane].map((pane) =>
      buildSetWindowOptionArgs(pane, 'remain-on-exit', 'on'),
    ),
    buildSetWindowOptionArgs(firstPane, 'pane-border-status', 'top'),
    buildSetWindowOptionArgs(
      firstPane,
      'pane-border-format',
      PANE_BORDER_FORMAT,
    ),
  ]);
  return {
    agents: [firstPane, ...made.slice(0, cwds.length)],
    bridge: bridgePane,
    status: statusPane,
  };
}

/**
 * Give the bridge window `macs bridge --all` and the status window
 * `macs status --watch` (which starts once a client attaches: the hook set
 * here), in one tmux call. The bridge reads the session record, so it is
 * written before this.
 */
export async function startSessionWindows(
  tmux: TmuxClient,
  options: {
    paths: HomePaths;
    socket: string;
    macsArgv: readonly string[];
    configFile?: string;
    nonInteractive?: boolean;
    bridge: string;
    status: string;
  },
): Promise<void> {
  const { paths, socket } = options;
  const sessionEnv = { MACS_HOME: paths.home, MACS_TMUX_SOCKET: socket };
  await tmux.chain([
    buildSetHookArgs(SESSION_NAME, 'client-attached', STATUS_HOOK),
    buildRespawnPaneArgs({
      pane: options.bridge,
      cwd: paths.home,
      env: sessionEnv,
      command: buildBridgeCommand({
        macsArgv: options.macsArgv,
        home: paths.home,
        socket,
        ...(options.configFile ? { config: options.configFile } : {}),
        ...(options.nonInteractive ? { nonInteractive: true } : {}),
      }),
    }),
    buildRespawnPaneArgs({
      pane: options.status,
      cwd: paths.home,
      env: sessionEnv,
      command: buildStatusCommand({
        macsArgv: options.macsArgv,
        home: paths.home,
        socket,
      }),
    }),
  ]);
}
