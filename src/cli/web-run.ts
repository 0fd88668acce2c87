import { isIP } from 'node:net';
import os from 'node:os';
import type { MacsConfig } from '../config/schema.js';
import { ConfigError, errorMessage, MacsError } from '../errors.js';
import { createEventLog } from '../events/log.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import { readAgentScreen } from '../operations/agent-screen.js';
import { remoteTargetOf } from '../operations/host-forward.js';
import { readSessionRecord } from '../session/record.js';
import {
  createSnapshotFeed,
  type SnapshotFeed,
} from '../state/snapshot-feed.js';
import { probeTmuxServer } from '../tmux/probe.js';
import { createSnapshotReader } from '../state/snapshot.js';
import type { TmuxClient } from '../tmux/client.js';
import { AUTH_FAILURES_MAX, createSecret } from '../web/auth.js';
import type { findFleetAgent, WebHosts } from '../web/web-fleet.js';
import type { ScreenView } from '../web/messages.js';
import { createContext, createLongLivedTmuxClient } from './common.js';
import type { CliDeps, CommonOptions } from './options.js';
import { VERSION } from '../version.js';

export interface WebOptions extends CommonOptions {
  listen?: string;
  allowSend?: boolean;
  allowHost?: string[];
}

/** The port `macs web` listens on unless told otherwise. */
export const WEB_DEFAULT_PORT = 7717;
/** Where `macs web` listens unless told otherwise. */
export const WEB_DEFAULT_LISTEN = `127.0.0.1:${WEB_DEFAULT_PORT}`;
/** How soon the page hears of a change in the home. */
const WEB_FEED_THROTTLE_MS = 20;

/**
 * `--listen` as host and port: `[::1]:7717`, `0.0.0.0:8080`, a port alone
 * (`7717`, on loopback) or an address alone (`0.0.0.0`, `::`, on the
 * default port). A bare word that is no address is refused, not looked up.
 */
export function parseListen(listen: string): { host: string; port: number } {
  const text = listen.trim();
  const bare = /^\[([0-9a-fA-F:.]+)\]$/.exec(text)?.[1] ?? text;
  const match = /^\d+$/.test(text)
    ? ['', '127.0.0.1', text]
    : isIP(bare) !== 0 || bare === 'localhost'
      ? ['', bare, String(WEB_DEFAULT_PORT)]
      : (/^\[([0-9a-fA-F:.]+)\]:(\d+)$/.exec(text) ??
        /^([^:[\]\s]+):(\d+)$/.exec(text));
  const port = Number(match?.[2]);
  if (!match?.[1] || !Number.isInteger(port) || port > 65535)
    throw new ConfigError(`--listen '${listen}' is not an address:port`, {
      hint: `e.g. --listen ${WEB_DEFAULT_LISTEN}, --listen 0.0.0.0 (every address, port ${WEB_DEFAULT_PORT}), --listen 127.0.0.1:0 (any free port)`,
    });
  return { host: match[1], port };
}

/** `host:port` as a URL writes it (`[::1]:7717`). */
function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** One URL to open, and where it reaches the server from. */
export interface WebUrl {
  url: string;
  /** `this machine`, or the network interface the address is on. */
  where: string;
}

/**
 * The URLs (with the secret) that reach a server listening on `host`:
 * loopback first. An any-address (`0.0.0.0`: every IPv4 address; `::`:
 * every address) lists each address of this machine's interfaces, so a
 * phone on the network has one to open; an IPv6 link-local address is left
 * out (a browser cannot open one). One address is that address alone.
 */
export function listenUrls(
  host: string,
  port: number,
  secret: string,
  interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces(),
): WebUrl[] {
  const url = (address: string) =>
    `http://${hostPort(address, port)}/?token=${secret}`;
  const named = Object.entries(interfaces).flatMap(([name, infos]) =>
    (infos ?? []).map((info) => ({ name, info })),
  );
  const anyV4 = host === '0.0.0.0';
  if (!anyV4 && host !== '::') {
    const where = isLoopback(host)
      ? 'this machine'
      : (named.find((n) => n.info.address === host)?.name ?? host);
    return [{ url: url(host), where }];
  }
  const urls: WebUrl[] = [
    { url: url(anyV4 ? '127.0.0.1' : '::1'), where: 'this machine' },
  ];
  const seen = new Set<string>();
  for (const { name, info } of named) {
    if (info.internal || seen.has(info.address)) continue;
    if (info.family === 'IPv6' && (anyV4 || isLinkLocalV6(info))) continue;
    seen.add(info.address);
    urls.push({ url: url(info.address), where: name });
  }
  return urls;
}

function isLinkLocalV6(info: os.NetworkInterfaceInfo): boolean {
  return (
    (info.family === 'IPv6' && info.scopeid !== 0) ||
    /^fe[89ab]/i.test(info.address)
  );
}

/**
 * What a failed listen means to the person, with what to pass instead;
 * undefined for an error of another kind. Exit 1: the command was right,
 * the machine refused it (SPEC §5).
 */
export function listenFailure(
  error: unknown,
  host: string,
  port: number,
): MacsError | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  const where = hostPort(host, port);
  const other = hostPort(
    host,
    port === WEB_DEFAULT_PORT ? port + 1 : WEB_DEFAULT_PORT,
  );
  if (code === 'EADDRINUSE')
    return new MacsError(
      `${where} is taken: another program listens there (another macs web?)`,
      {
        hint: `pick another port: macs web --listen ${other}, or --listen ${hostPort(host, 0)} for any free one`,
        cause: error,
      },
    );
  if (code === 'EADDRNOTAVAIL')
    return new MacsError(
      `cannot listen on ${where}: ${host} is not an address of this machine`,
      {
        hint: `--listen ${WEB_DEFAULT_LISTEN} (this machine only) or --listen 0.0.0.0 (every address)`,
        cause: error,
      },
    );
  if (code === 'EACCES')
    return new MacsError(
      `cannot listen on ${where}: permission denied${port < 1024 ? ' (a port below 1024 needs root)' : ''}`,
      {
        hint: `--listen ${hostPort(host, WEB_DEFAULT_PORT)}, or --listen ${hostPort(host, 0)} for any free port`,
        cause: error,
      },
    );
  return undefined;
}

/** Whether only this machine can reach the address. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
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
    import('../web/web-fleet.js'),
  ]);
  return web.createWebHosts(
    remote.createRemoteFleet(
      { config, env, paths, version: VERSION, log },
      { live: true },
    ),
    paths,
  );
}

/** The session's tmux server, as it is now (a session started later is found). */
function createTmuxClients(
  opts: WebOptions,
  deps: CliDeps,
  paths: HomePaths,
  log: Logger,
): { client: () => Promise<TmuxClient>; close: () => Promise<void> } {
  const clients = new Map<string, TmuxClient>();
  const client = async (): Promise<TmuxClient> => {
    const socket =
      opts.tmuxSocket ??
      (await readSessionRecord(paths).catch(() => undefined))?.socket;
    const key = socket ?? '';
    let found = clients.get(key);
    if (!found) {
      found = createLongLivedTmuxClient(socket, deps, log);
      clients.set(key, found);
    }
    return found;
  };
  const close = async () => {
    await Promise.all([...clients.values()].map((c) => c.close()));
  };
  return { client, close };
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

/** Where the page is, and the warnings a person must see, on the terminal. */
function announce(
  opts: WebOptions,
  deps: CliDeps,
  host: string,
  port: number,
  secret: string,
): void {
  // One line per address (`0.0.0.0`: each of this machine's), loopback first.
  const urls = listenUrls(host, port, secret);
  for (const { url, where } of urls)
    deps.output.out(
      `macs web: open ${url}${urls.length > 1 ? ` (${where})` : ''}`,
    );
  if (!isLoopback(host))
    deps.output.err(
      `warning: macs web listens on ${host}, reachable from other machines; anyone who gets the URL can answer your agents (an ssh tunnel is safer: docs/web.md)`,
    );
  if (opts.allowSend)
    deps.output.err(
      'warning: --allow-send: the page can type messages into idle agents',
    );
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

/**
 * `macs web`: serve the page until interrupted. Prints the URL (with its
 * secret) once, on stdout; the developer log never holds it.
 */
export async function runWeb(opts: WebOptions, deps: CliDeps): Promise<number> {
  const ctx = createContext(opts, deps);
  const { config } = await ctx.loadConfig();
  const { host, port } = parseListen(opts.listen ?? WEB_DEFAULT_LISTEN);
  const { paths, log } = ctx;
  // A session whose tmux server is gone reads so here too.
  const serverUp = probeTmuxServer(deps.runTmux);
  const feed = startFeed(paths, log, serverUp);
  await feed.start();
  const hosts = await startHosts(config, paths, log, deps.env);
  const tmux = createTmuxClients(opts, deps, paths, log);
  const isRemote = (agent: string) =>
    remoteTargetOf(agent, 'agent', config, deps.env) !== undefined;
  const stopAll = async () => {
    await hosts?.close();
    feed.stop();
    await tmux.close();
  };
  const { startWebServer } = await import('../web/server.js');
  const secret = createSecret();
  const server = await startWebServer({
    host,
    port,
    secret,
    onLimited: (address) =>
      deps.output.err(
        `warning: ${AUTH_FAILURES_MAX} wrong secrets or session cookies from ${address} within a minute; its wrong ones are refused for a minute (signed-in pages keep working)`,
      ),
    ...(opts.allowHost ? { hostNames: opts.allowHost } : {}),
    feed,
    allowSend: opts.allowSend === true,
    panesDir: paths.panes,
    log: log.child({ component: 'web' }),
    readScreen: createScreenReader(paths, hosts, tmux.client, isRemote),
    actions: {
      paths,
      config,
      env: deps.env,
      reader: createSnapshotReader(paths, { eventLimit: 1, serverUp }),
      feed,
      events: createEventLog(paths),
      log,
      ...(opts.allowSend
        ? {
            send: {
              runTmux: deps.runTmux,
              ...(opts.tmuxSocket ? { socket: opts.tmuxSocket } : {}),
            },
          }
        : {}),
      ...(hosts ? { forward: hosts.forward } : {}),
    },
    ...(hosts ? { hosts } : {}),
  }).catch(async (error: unknown) => {
    await stopAll();
    throw listenFailure(error, host, port) ?? error;
  });
  const allowSend = opts.allowSend === true;
  log.info({ host, port: server.port, allowSend }, 'web server started');
  announce(opts, deps, host, server.port, secret);
  const signal = await deps.interrupted;
  await server.close();
  await stopAll();
  log.info({ signal }, 'web server stopped');
  return signal === 'SIGINT' ? 130 : 0;
}
