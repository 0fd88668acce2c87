// `macs web`'s run: its options parsed, the page served (web/serve-home.ts),
// where it is said on the terminal, until interrupted.
import { AUTH_FAILURES_MAX } from '../web/auth.js';
import {
  isLoopback,
  listenUrls,
  parseListen,
  WEB_DEFAULT_LISTEN,
} from '../web/listen.js';
import { createContext, createLongLivedTmuxClient } from './common.js';
import type { CliDeps, CommonOptions } from './options.js';

export interface WebOptions extends CommonOptions {
  listen?: string;
  allowSend?: boolean;
  allowHost?: string[];
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

/**
 * `macs web`: serve the page until interrupted. Prints the URL (with its
 * secret) once, on stdout; the developer log never holds it.
 */
export async function runWeb(opts: WebOptions, deps: CliDeps): Promise<number> {
  const ctx = createContext(opts, deps);
  const { config } = await ctx.loadConfig();
  const { host, port } = parseListen(opts.listen ?? WEB_DEFAULT_LISTEN);
  const { paths, log } = ctx;
  const { serveHome } = await import('../web/serve-home.js');
  const allowSend = opts.allowSend === true;
  const page = await serveHome({
    paths,
    config,
    env: deps.env,
    log,
    host,
    port,
    allowSend,
    allowHost: opts.allowHost,
    tmuxSocket: opts.tmuxSocket,
    runTmux: deps.runTmux,
    openTmux: (socket) => createLongLivedTmuxClient(socket, deps, log),
    onLimited: (address) =>
      deps.output.err(
        `warning: ${AUTH_FAILURES_MAX} wrong secrets or session cookies from ${address} within a minute; its wrong ones are refused for a minute (signed-in pages keep working)`,
      ),
  });
  log.info({ host, port: page.port, allowSend }, 'web server started');
  announce(opts, deps, host, page.port, page.secret);
  const signal = await deps.interrupted;
  await page.close();
  log.info({ signal }, 'web server stopped');
  return signal === 'SIGINT' ? 130 : 0;
}
