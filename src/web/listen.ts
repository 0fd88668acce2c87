/**
 * Where the page of `macs web` listens (`--listen`), the URLs that reach
 * it, and what a failed listen means to the person.
 */
import { isIP } from 'node:net';
import os from 'node:os';
import { ConfigError, MacsError } from '../errors.js';

/** The port `macs web` listens on unless told otherwise. */
export const WEB_DEFAULT_PORT = 7717;
/** Where `macs web` listens unless told otherwise. */
export const WEB_DEFAULT_LISTEN = `127.0.0.1:${WEB_DEFAULT_PORT}`;
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
