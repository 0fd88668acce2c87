import { isIP } from 'node:net';
import os from 'node:os';
import { AgentError, ConfigError, errorMessage, MacsError } from '../errors.js';
import { createEventLog } from '../events/log.js';
import { readAgentScreen } from '../mcp/screen.js';
import { readSessionRecord } from '../session/record.js';
import { createSnapshotFeed } from '../state/watch.js';
import { probeTmuxServer } from '../tmux/probe.js';
import { createSnapshotReader } from '../state/snapshot.js';
import type { TmuxClient } from '../tmux/client.js';
import { AUTH_FAILURES_MAX, createSecret } from '../web/auth.js';
import type { findFleetAgent } from '../web/fleet.js';
import type { ActionReply, ScreenView } from '../web/messages.js';
import { WEB_SEND_TIMEOUT_SEC } from '../web/actions.js';
import { createContext, createLongLivedTmuxClient } from './common.js';
import { describeDismissal, dismissRequests } from './dismiss.js';
import type { CliDeps, CommonOptions } from './options.js';
import { pauseDelivery } from './pause.js';
import { remoteTargetOf } from './remote.js';
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

/**
 * `macs web`: serve the page until interrupted. Prints the URL (with its
 * secret) once, on stdout; the developer log never holds it.
 */
export async function runWeb(opts: WebOptions, deps: CliDeps): Promise<number> {
  const ctx = createContext(opts, deps);
  const { config } = await ctx.loadConfig();
  const { host, port } = parseListen(opts.listen ?? WEB_DEFAULT_LISTEN);
  const { paths, log } = ctx;
  const events = createEventLog(paths);
  // A session whose tmux server is gone reads so here too.
  const serverUp = probeTmuxServer(deps.runTmux);
  const feed = createSnapshotFeed({
    paths,
    reader: createSnapshotReader(paths, { serverUp }),
    throttleMs: WEB_FEED_THROTTLE_MS,
    keepAlive: true,
    onError: (error) => log.warn({ err: error }, 'web: status read failed'),
  });
  await feed.start();
  // At a hub, one live link per host for as long as the page is served.
  const hosts =
    Object.keys(config.hosts).length === 0
      ? undefined
      : await Promise.all([
          import('../remote/fleet.js'),
          import('../web/fleet.js'),
        ]).then(([remote, web]) =>
          web.createWebHosts(
            remote.createRemoteFleet(
              { config, env: deps.env, paths, version: VERSION, log },
              { live: true },
            ),
            paths,
          ),
        );
  /** The host and its own name of `<host>/<name>`; undefined for a local name. */
  const remoteOf = (name: string, kind: 'agent' | 'request') =>
    remoteTargetOf(name, kind, config, deps.env);
  /** `macs <argv…>` run by a host's own macs, as the command line does. */
  const onHost = async (
    target: NonNullable<ReturnType<typeof remoteOf>>['target'],
    argv: string[],
  ): Promise<string> => {
    const { runHostMacs } = await import('../remote/forward.js');
    const lines = await runHostMacs(target, argv);
    return lines.map((l) => `${target.name}: ${l}`).join('\n');
  };

  // The session's tmux server, as it is now (a session started later is found).
  const clients = new Map<string, TmuxClient>();
  const tmuxClient = async (): Promise<TmuxClient> => {
    const socket =
      opts.tmuxSocket ??
      (await readSessionRecord(paths).catch(() => undefined))?.socket;
    const key = socket ?? '';
    let client = clients.get(key);
    if (!client) {
      client = createLongLivedTmuxClient(socket, deps, log);
      clients.set(key, client);
    }
    return client;
  };
  const readScreen = async (
    agent: string,
    fleet: Parameters<typeof findFleetAgent>[0],
  ): Promise<ScreenView> => {
    try {
      // A host's agent: its screen through the host's own read_screen.
      if (hosts && remoteOf(agent, 'agent')) {
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
        tmux: await tmuxClient(),
        agent,
      });
    } catch (error) {
      return { agent, error: errorMessage(error) };
    }
  };
  const known = (agent: string) => {
    const fleet = feed.current();
    if (!fleet?.agents.some((a) => a.name === agent))
      throw new AgentError(`no agent '${agent}' in ${paths.home}`);
  };
  const send = opts.allowSend
    ? async (
        agent: string,
        text: string,
        signal: AbortSignal,
      ): Promise<ActionReply> => {
        known(agent);
        const { sendToAgent } = await import('./send.js');
        const outcome = await sendToAgent({
          agent,
          text,
          ctx,
          config,
          runTmux: deps.runTmux,
          ...(opts.tmuxSocket ? { socket: opts.tmuxSocket } : {}),
          timeoutSec: WEB_SEND_TIMEOUT_SEC,
          signal,
        });
        if (outcome.type === 'cancelled')
          return { ok: false, message: 'cancelled; nothing was typed' };
        return outcome.data.confirmed
          ? { ok: true, message: `sent to ${outcome.shown}: ${outcome.how}` }
          : {
              ok: false,
              message: `typed into ${outcome.shown} but saw no sign the agent took it; not typed again`,
            };
      }
    : undefined;

  const { startWebServer } = await import('../web/server.js');
  const secret = createSecret();
  const stopAll = async () => {
    await hosts?.close();
    feed.stop();
    await Promise.all([...clients.values()].map((c) => c.close()));
  };
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
    readScreen,
    actions: {
      paths,
      reader: createSnapshotReader(paths, { eventLimit: 1, serverUp }),
      events,
      log,
      setPaused: async (agent, paused) => {
        const remote = remoteOf(agent, 'agent');
        if (remote) {
          await onHost(remote.target, [
            paused ? 'pause' : 'resume',
            remote.name,
          ]);
          return;
        }
        known(agent);
        await pauseDelivery(paths, events, agent, paused, 'web');
      },
      dismiss: async (id, reason) => {
        const remote = remoteOf(id, 'request');
        if (remote)
          return {
            ok: true,
            message:
              (await onHost(remote.target, [
                'dismiss',
                remote.name,
                '--reason',
                reason,
              ])) || `dismissed ${id}`,
          };
        const [outcome] = await dismissRequests(paths, [id], reason, log);
        if (!outcome) return { ok: false, message: 'nothing dismissed' };
        return {
          ok:
            outcome.result === 'dismissed' || outcome.result === 'handed-over',
          message: describeDismissal(outcome),
        };
      },
      ...(send ? { send } : {}),
      ...(hosts ? { forward: hosts.forward } : {}),
    },
    ...(hosts ? { hosts } : {}),
  }).catch(async (error: unknown) => {
    await stopAll();
    throw listenFailure(error, host, port) ?? error;
  });
  log.info(
    { host, port: server.port, allowSend: opts.allowSend === true },
    'web server started',
  );
  // One line per address (`0.0.0.0`: each of this machine's), loopback first.
  const urls = listenUrls(host, server.port, secret);
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
  const signal = await deps.interrupted;
  await server.close();
  await stopAll();
  log.info({ signal }, 'web server stopped');
  return signal === 'SIGINT' ? 130 : 0;
}
