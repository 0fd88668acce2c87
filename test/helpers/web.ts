import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { MACS_BIN } from './macs.js';
import { CHROMIUM } from './require-chromium.js';
import { childEnv } from './tmux-server.js';
import { waitFor } from './wait-for.js';

export interface WebProcess {
  child: ChildProcess;
  /** The URL printed, with its secret. */
  url: string;
  secret: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  output: () => string;
  stop(): Promise<void>;
}

/** Start `macs web` on a free loopback port; resolves once it printed its URL. */
export async function startWeb(options: {
  home: string;
  socket: string;
  args?: string[];
  env?: Record<string, string>;
}): Promise<WebProcess> {
  const child = spawn(
    process.execPath,
    [MACS_BIN, 'web', '--listen', '127.0.0.1:0', ...(options.args ?? [])],
    {
      env: childEnv({
        MACS_HOME: options.home,
        MACS_TMUX_SOCKET: options.socket,
        ...options.env,
      }),
      cwd: options.home,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let text = '';
  child.stdout?.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (text += d.toString()));
  const exited = new Promise<void>((resolve) =>
    child.on('exit', () => resolve()),
  );
  const url = await waitFor(
    () => {
      if (child.exitCode !== null)
        throw new Error(`macs web exited (${child.exitCode}): ${text}`);
      return /open (http:\/\/\S+)/.exec(text)?.[1];
    },
    { timeout: 20_000, message: 'macs web prints its URL' },
  );
  const parsed = new URL(url);
  return {
    child,
    url,
    secret: parsed.searchParams.get('token') ?? '',
    origin: parsed.origin,
    port: Number(parsed.port),
    output: () => text,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGINT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/** Debian's chromium under playwright-core (no browser download). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // Root in a container: chromium's sandbox needs user namespaces.
    args: ['--no-sandbox', '--disable-gpu'],
  });
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP request with exactly the headers given (Host and Origin included). */
export function rawRequest(
  port: number,
  options: {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: options.headers ?? {},
        setHost: !options.headers?.Host,
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body }),
        );
      },
    );
    req.on('error', reject);
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({
        status: res.statusCode ?? 101,
        headers: res.headers,
        body: '',
      });
    });
    req.end(options.body);
  });
}

/** A WebSocket upgrade request; resolves to the status the server answered. */
export function upgradeStatus(
  port: number,
  headers: Record<string, string>,
): Promise<number> {
  return rawRequest(port, {
    path: '/ws',
    headers: {
      Connection: 'Upgrade',
      Upgrade: 'websocket',
      'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      ...headers,
    },
  }).then((r) => r.status);
}

/** Sign in with the secret; the session cookie (`name=value`). */
export async function signIn(web: WebProcess): Promise<string> {
  const res = await rawRequest(web.port, {
    path: `/?token=${encodeURIComponent(web.secret)}`,
  });
  const cookie = String(res.headers['set-cookie']?.[0] ?? '').split(';')[0];
  if (res.status !== 200 || !cookie)
    throw new Error(`sign-in failed: ${res.status} ${res.body}`);
  return cookie;
}
