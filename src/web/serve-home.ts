/**
 * `macs web` for a home, assembled: the change feed of the home's status,
 * at a hub a live link per host, the session's tmux for the screens, and
 * the page's server on them (server.ts). Returns a handle; prints nothing
 * (the door says where the page is).
 */
import type { MacsConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { createEventLog } from '../events/log.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import { readAgentScreen } from '../operations/agent-screen.js';
import { remoteTargetOf } from '../operations/host-forward.js';
import { createSessionTmuxClients } from '../operations/session-tmux.js';
import {
  createSnapshotFeed,
  type SnapshotFeed,
} from '../state/snapshot-feed.js';
import { createSnapshotReader } from '../state/snapshot.js';
import type { TmuxClient } from '../tmux/client.js';
import { probeTmuxServer } from '../tmux/probe.js';
import type { RunTmux } from '../tmux/run.js';
import { VERSION } from '../version.js';
import { createSecret } from './auth.js';
import { listenFailure } from './listen.js';
import type { ScreenView } from './messages.js';
import { startWebServer } from './server.js';
import type { findFleetAgent, WebHosts } from './web-fleet.js';

/** How soon the page hears of a change in the home. */
const WEB_FEED_THROTTLE_MS = 20;

export interface ServeHomeOptions {
  paths: HomePaths;
  config: MacsConfig;
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** Where to listen (web/listen.ts `parseListen`). */
  host: string;
  port: number;
  /** `--allow-send`: the page may type messages into agents. */
  allowSend: boolean;
  /** `--allow-host`: names the page may be reached by. */
  allowHost?: string[] | undefined;
  /** `--tmux-socket`; else the session's server, read at each use. */
  tmuxSocket?: string | undefined;
  runTmux: RunTmux;
  /** A long-lived client of the tmux server on a socket (the screens). */
  openTmux: (socket: string | undefined) => TmuxClient;
  /** An address's wrong secrets past the count (auth.ts AUTH_FAILURES_MAX). */
  onLimited: (address: string) => void;
}

/** The page being served, until `close()`. */
export interface ServedHome {
  /** The port listened on (the one asked for, or the free one taken for 0). */
  port: number;
  /** The secret of the page's URL (never logged). */
  secret: string;
  close: () => Promise<void>;
}

/**
 * Serve the page of a home until `close()`. A listen the machine refuses
 * throws the person's error (listen.ts `listenFailure`), all stopped.
 */
export async function serveHome(
  options: ServeHomeOptions,
): Promise<ServedHome> {
  const { paths, config, env, log, host, port } = options;
  // A session whose tmux server is gone reads so here too.
  const serverUp = probeTmuxServer(options.runTmux);
  const feed = startFeed(paths, log, serverUp);
  await feed.start();
  const hosts = await startHosts(config, paths, log, env);
  const tmux = createSessionTmuxClients(
    paths,
    options.tmuxSocket,
    options.openTmux,
  );
  const isRemote = (agent: string) =>
    remoteTargetOf(agent, 'agent', config, env) !== undefined;
  const stopAll = async () => {
    await hosts?.close();
    feed.stop();
    await tmux.close();
  };
  const secret = createSecret();
  const server = await startWebServer({
    host,
    port,
    secret,
    onLimited: options.onLimited,
    ...(options.allowHost ? { hostNames: options.allowHost } : {}),
    feed,
    allowSend: options.allowSend,
    panesDir: paths.panes,
    log: log.child({ component: 'web' }),
    readScreen: createScreenReader(paths, hosts, tmux.client, isRemote),
    actions: {
      paths,
      config,
      env,
      reader: createSnapshotReader(paths, { eventLimit: 1, serverUp }),
      feed,
      events: createEventLog(paths),
      log,
      ...(options.allowSend ? { send: sendDeps(options) } : {}),
      ...(hosts ? { forward: hosts.forward } : {}),
    },
    ...(hosts ? { hosts } : {}),
  }).catch(async (error: unknown) => {
    await stopAll();
    throw listenFailure(error, host, port) ?? error;
  });
  return {
    port: server.port,
    secret,
    close: async () => {
      await server.close();
      await stopAll();
    },
  };
}

/** How the page's send types (with `--allow-send`). */
function sendDeps(options: ServeHomeOptions) {
  return {
    runTmux: options.runTmux,
    ...(options.tmuxSocket ? { socket: options.tmuxSocket } : {}),
  };
}

/** At a hub, one live link per host for as long as the page is served. */
async function startHosts(
  config: MacsConfig,
  paths: HomePaths,
  log: Logger,
  env: NodeJS.ProcessEnv,
): Promise<WebHosts | undefined> {
  if (Object.keys(config.hosts).length === 0) return undefined;
  const [remote, web] = await Promise.all([
    import('../remote/remote-fleet.js'),
    import('./web-fleet.js'),
  ]);
  return web.createWebHosts(
    remote.createRemoteFleet(
      { config, env, paths, version: VERSION, log },
      { live: true },
    ),
    paths,
  );
}

type ReadScreen = (
  agent: string,
  fleet: Parameters<typeof findFleetAgent>[0],
) => Promise<ScreenView>;

/** An agent's screen for the page: a host's through its own read_screen. */
function createScreenReader(
  paths: HomePaths,
  hosts: WebHosts | undefined,
  tmux: () => Promise<TmuxClient>,
  isRemote: (agent: string) => boolean,
): ReadScreen {
  return async (agent, fleet) => {
    try {
      if (hosts && isRemote(agent)) {
        const output = await hosts.forward('read_screen', { agent });
        const lines = (output?.data.lines as string[] | undefined) ?? [];
        return {
          agent,
          pane: agent,
          dead: false,
          width: Math.max(1, ...lines.map((l) => l.length)),
          height: Math.max(1, lines.length),
          lines,
        };
      }
      return await readAgentScreen({
        paths,
        agents: fleet?.agents ?? [],
        tmux: await tmux(),
        agent,
      });
    } catch (error) {
      return { agent, error: errorMessage(error) };
    }
  };
}

/** The home's status, read again whenever it changes, for the page. */
function startFeed(
  paths: HomePaths,
  log: Logger,
  serverUp: ReturnType<typeof probeTmuxServer>,
): SnapshotFeed {
  return createSnapshotFeed({
    paths,
    reader: createSnapshotReader(paths, { serverUp }),
    throttleMs: WEB_FEED_THROTTLE_MS,
    keepAlive: true,
    onError: (error) => log.warn({ err: error }, 'web: status read failed'),
  });
}
