// `macs web`: its flags; its run (web-run.ts, the server) loads when it runs.
import { Option, type Command } from 'commander';
import { addCommonOptions, type CliDeps } from './options.js';
import type { WebOptions } from './web-run.js';

export function registerWebCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('web')
      .description(
        'the fleet in a browser: agents, requests, live screens; answer, decide, pause from the page',
      )
      .addOption(
        new Option(
          '--listen <address[:port]>',
          'where to listen (default 127.0.0.1:7717; an address alone takes port 7717, port 0 any free one; 0.0.0.0 is every address, reachable from other machines: a warning says so)',
        ).env('MACS_WEB_LISTEN'),
      )
      .addOption(
        new Option(
          '--allow-send',
          "let the page type messages into agents (through macs send's safe path); off by default",
        ).env('MACS_WEB_ALLOW_SEND'),
      )
      .addOption(
        new Option(
          '--allow-host <name...>',
          'a host name the page may be reached by, besides IP addresses and localhost (e.g. a name on your network)',
        ).env('MACS_WEB_ALLOW_HOST'),
      ),
  )
    .addHelpText(
      'after',
      `
Prints one URL carrying a random secret: open it; the page trades the secret
for a cookie and drops it from the address bar. Without it every page and
socket answers 401. To reach it from another machine, prefer an ssh tunnel:
  ssh -L 7717:127.0.0.1:7717 you@host   # then open the printed URL locally
With --listen 0.0.0.0 it prints one URL per address of this machine (for a
phone on your network). A port already taken: exit 1; pick another with
--listen (127.0.0.1:0 takes any free port). See docs/web.md.`,
    )
    .action((opts: WebOptions) =>
      run(import('./web-run.js').then((m) => m.runWeb(opts, deps))),
    );
}
