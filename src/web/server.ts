/**
 * The server of `macs web`: one page, its assets, the actions (POST
 * /api/<action>) and one socket per page (/ws) carrying the fleet each time
 * the change feed has a new snapshot, and the screens the page watches.
 *
 * Safe by default (docs/web.md): every answer checks the `Host` (DNS
 * rebinding), then the session cookie, which the page gets by showing the
 * secret once (`/?token=`); an address's wrong guesses past a count are
 * refused as too many, never a right secret or a live session; a POST
 * and a socket must come from this server's own page (`Origin`). Agents'
 * text reaches the page as JSON data, never as HTML.
 *
 * At a hub (docs/remote.md) a host is read over its live link when it says
 * it changed (its change notice, its link up or down), after each action,
 * and all of them every HOSTS_REFRESH_MS in case a notice was lost; the
 * page is sent the fleet again only when that changed it.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { createAdaptorServer, type HttpBindings } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '../log/logger.js';
import type { Snapshot } from '../state/snapshot-schema.js';
import type { SnapshotFeed } from '../state/snapshot-feed.js';
import { isActionName, runWebAction, type WebActionDeps } from './actions.js';
import { createAssetReader, PAGE_ASSETS } from './assets.js';
import {
  createWebAuth,
  isAllowedHost,
  type CredentialCheck,
  isSameOrigin,
  sessionCookie,
  type WebAuth,
} from './auth.js';
import { buildFleet, type WebHosts } from './web-fleet.js';
import type {
  ClientMessage,
  FleetView,
  ScreenView,
  ServerMessage,
} from './messages.js';
import {
  PAGE_HTML,
  SECURITY_HEADERS,
  TOO_MANY_TEXT,
  UNAUTHORIZED_TEXT,
} from './page-html.js';
import { startHostReads } from './host-reads.js';
import { createScreenHub } from './screens.js';

/** Largest action body. */
const MAX_BODY_BYTES = 512 * 1024;
/** Largest message a page sends on its socket. */
const MAX_SOCKET_MESSAGE_BYTES = 64 * 1024;
/** Most screens one page may watch. */
const MAX_WATCHED_SCREENS = 256;
/** How often sockets are pinged (a page gone without closing is dropped). */
const SOCKET_PING_MS = 30_000;
/**
 * How often a hub's hosts are all read again though none said it changed:
 * the backstop for a lost change notice (a host's changes are pushed).
 */
export const HOSTS_REFRESH_MS = 30_000;

export interface WebServerOptions {
  /** The address to listen on (`--listen`). */
  host: string;
  port: number;
  secret: string;
  /** Host names (besides IP literals and `localhost`) the page may be reached by. */
  hostNames?: readonly string[];
  feed: Pick<SnapshotFeed, 'current' | 'subscribe' | 'refresh'>;
  allowSend: boolean;
  actions: Omit<WebActionDeps, 'refresh'>;
  readScreen: (
    agent: string,
    fleet: FleetView | undefined,
  ) => Promise<ScreenView>;
  /** `.macs/panes/`: screens are read again when a pane log grows. */
  panesDir: string;
  log: Logger;
  /** The config's hosts (absent without `hosts`): read for the page. */
  hosts?: Pick<WebHosts, 'read' | 'readHost' | 'onChange'>;
  hostsRefreshMs?: number;
  /** Where the built page is (tests). */
  assetsDir?: string;
  /** An address made too many failed attempts (once per window). */
  onLimited?: (address: string) => void;
}

export interface WebServer {
  /** The port listened on (the one chosen when asked for 0). */
  port: number;
  close(): Promise<void>;
}

type Env = { Bindings: HttpBindings };

function remoteAddress(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

/** Start the server; resolves once it listens. */
export async function startWebServer(
  options: WebServerOptions,
): Promise<WebServer> {
  const { log } = options;
  const { onLimited } = options;
  const auth: WebAuth = createWebAuth(options.secret, { onLimited });
  const readAsset = createAssetReader(options.assetsDir);
  const sockets = new Map<WebSocket, Set<string>>();
  let fleet: FleetView | undefined;
  // The hosts: pushed (a host's change notice), with a slow backstop.
  let stopped = false;
  const hostReads =
    options.hosts &&
    startHostReads({
      hosts: options.hosts,
      refreshMs: options.hostsRefreshMs ?? HOSTS_REFRESH_MS,
      log,
      // Called after a read, never before `publish` is defined.
      onViews: () => {
        const snapshot = options.feed.current();
        if (snapshot && !stopped) publish(snapshot);
      },
    });

  const toFleet = (s: Snapshot) =>
    buildFleet(s, { allowSend: options.allowSend }, hostReads?.views() ?? []);
  const first = options.feed.current();
  if (first) fleet = toFleet(first);

  const send = (ws: WebSocket, message: ServerMessage) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
  };
  const hub = createScreenHub({
    panesDir: options.panesDir,
    read: (agent) => options.readScreen(agent, fleet),
    onScreen: (screen) => {
      const text = JSON.stringify({ type: 'screen', screen });
      for (const [ws, agents] of sockets)
        if (agents.has(screen.agent) && ws.readyState === ws.OPEN)
          ws.send(text);
    },
  });
  let sentText = '';
  const publish = (snapshot: Snapshot) => {
    fleet = toFleet(snapshot);
    const text = JSON.stringify({ type: 'fleet', fleet });
    if (text === sentText) return;
    sentText = text;
    for (const ws of sockets.keys())
      if (ws.readyState === ws.OPEN) ws.send(text);
    hub.refreshAll();
  };
  const unsubscribe = options.feed.subscribe(publish);

  const actionDeps: WebActionDeps = {
    ...options.actions,
    // The reply does not wait for the hosts; the page hears of them soon.
    refresh: async () => {
      void hostReads?.readAll();
      await options.feed.refresh();
    },
  };

  const app = new Hono<Env>();
  app.use('*', async (c, next) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS))
      c.header(name, value);
    if (!isAllowedHost(c.req.header('host'), options.hostNames))
      return c.text(
        'macs web: this server is reached by address only (Host refused)\n',
        403,
      );
    return next();
  });

  /** The answer to a credential that is not `ok`. */
  const refusal = (c: Context<Env>, check: CredentialCheck): Response =>
    check === 'limited'
      ? c.text(TOO_MANY_TEXT, 429)
      : c.text(UNAUTHORIZED_TEXT, 401);
  /** undefined when signed in, else the refusal. */
  const refuse = (c: Context<Env>): Response | undefined => {
    const check = auth.checkSession(
      c.req.header('cookie'),
      remoteAddress(c.env.incoming),
    );
    return check === 'ok' ? undefined : refusal(c, check);
  };

  app.get('/', (c) => {
    const token = c.req.query('token');
    if (token !== undefined) {
      const check = auth.checkSecret(token, remoteAddress(c.env.incoming));
      if (check !== 'ok') return refusal(c, check);
      c.header('Set-Cookie', sessionCookie(auth.openSession()));
      return c.html(PAGE_HTML);
    }
    return refuse(c) ?? c.html(PAGE_HTML);
  });

  app.get('/assets/:name', async (c) => {
    const refused = refuse(c);
    if (refused) return refused;
    const name = c.req.param('name');
    const body = await readAsset(name);
    if (body === undefined)
      return c.text(
        'macs web: no such asset (is macs built? npm run build)\n',
        404,
      );
    c.header('Content-Type', PAGE_ASSETS[name] ?? 'text/plain');
    return c.body(body);
  });

  // Browsers ask for it on their own; nothing to show.
  app.get('/favicon.ico', (c) => c.body(null, 204));

  app.get('/api/fleet', (c) => refuse(c) ?? c.json(fleet ?? null));

  app.post(
    '/api/:action',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => c.text('macs web: body too large\n', 413),
    }),
    async (c) => {
      const refused = refuse(c);
      if (refused) return refused;
      if (!isSameOrigin(c.req.header('origin'), c.req.header('host')))
        return c.text('macs web: cross-origin request refused\n', 403);
      if (!/^application\/json\b/i.test(c.req.header('content-type') ?? ''))
        return c.text('macs web: send JSON\n', 415);
      const action = c.req.param('action');
      if (!isActionName(action))
        return c.text('macs web: no such action\n', 404);
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        return c.json({ ok: false, message: 'bad input: not JSON' }, 400);
      }
      const controller = new AbortController();
      // The page went away before its answer: a send still waiting for an
      // idle agent gives up, typing nothing.
      c.env.outgoing.once('close', () => {
        if (!c.env.outgoing.writableFinished) controller.abort();
      });
      const reply = await runWebAction(
        actionDeps,
        action,
        body,
        controller.signal,
      );
      return c.json(reply, reply.ok ? 200 : 409);
    },
  );

  app.notFound((c) => refuse(c) ?? c.text('macs web: not found\n', 404));
  app.onError((error, c) => {
    log.error({ err: error }, 'web request failed');
    return c.text('macs web: internal error\n', 500);
  });

  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_SOCKET_MESSAGE_BYTES,
  });

  const answerUpgrade = (socket: Duplex, status: string, text: string) => {
    socket.end(
      `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
    );
  };
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const address = remoteAddress(req);
    const host = req.headers.host;
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/ws')
      return answerUpgrade(socket, '404 Not Found', 'not found\n');
    if (!isAllowedHost(host, options.hostNames))
      return answerUpgrade(socket, '403 Forbidden', 'Host refused\n');
    const check = auth.checkSession(req.headers.cookie, address);
    if (check === 'limited')
      return answerUpgrade(socket, '429 Too Many Requests', TOO_MANY_TEXT);
    if (check !== 'ok')
      return answerUpgrade(socket, '401 Unauthorized', UNAUTHORIZED_TEXT);
    if (!isSameOrigin(req.headers.origin, host))
      return answerUpgrade(
        socket,
        '403 Forbidden',
        'cross-origin socket refused\n',
      );
    wss.handleUpgrade(req, socket, head, (ws) => onSocket(ws));
  });

  function onSocket(ws: WebSocket): void {
    const watched = new Set<string>();
    sockets.set(ws, watched);
    let alive = true;
    ws.on('pong', () => {
      alive = true;
    });
    const ping = setInterval(() => {
      if (!alive) return ws.terminate();
      alive = false;
      ws.ping();
    }, SOCKET_PING_MS);
    ping.unref();
    if (fleet) send(ws, { type: 'fleet', fleet });
    ws.on('message', (data) => {
      let message: ClientMessage;
      try {
        message = JSON.parse(
          Buffer.isBuffer(data) ? data.toString('utf8') : '',
        ) as ClientMessage;
      } catch {
        return;
      }
      if (message?.type !== 'screens' || !Array.isArray(message.agents)) return;
      const wanted = new Set(
        message.agents
          .filter((a): a is string => typeof a === 'string' && a.length <= 200)
          .slice(0, MAX_WATCHED_SCREENS),
      );
      for (const agent of [...watched])
        if (!wanted.has(agent)) {
          watched.delete(agent);
          hub.unwatch(agent);
        }
      for (const agent of wanted)
        if (!watched.has(agent)) {
          watched.add(agent);
          hub.watch(agent);
          const latest = hub.latest(agent);
          if (latest) send(ws, { type: 'screen', screen: latest });
        }
    });
    ws.on('close', () => {
      clearInterval(ping);
      sockets.delete(ws);
      for (const agent of watched) hub.unwatch(agent);
    });
    ws.on('error', () => ws.terminate());
  }

  const stopAll = () => {
    stopped = true;
    void hostReads?.stop();
    unsubscribe();
    hub.stop();
    wss.close();
  };
  // A taken port or an address not of this machine: nothing of this server
  // keeps running; the caller says what to do.
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => {
      stopAll();
      reject(error);
    };
    server.once('error', failed);
    server.listen(options.port, options.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const address = server.address();
  const port =
    typeof address === 'object' && address ? address.port : options.port;
  return {
    port,
    async close() {
      stopped = true;
      await hostReads?.stop();
      for (const ws of sockets.keys()) ws.terminate();
      stopAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
