import { ConfigError } from '../errors.js';
import { sendToAgent } from '../operations/send-message.js';
import { isValidAgentName } from '../protocol/ids.js';
import { teammateNamed } from '../state/teammates.js';
import { createContext, type CommandContext } from './common.js';
import { readSendText } from './send-text.js';
import type { CliDeps } from './options.js';
import type { SendOptions } from './types.js';

/** `macs send -` reads at most this much of stdin. */
const MAX_SEND_BYTES = 1024 * 1024;

/** `--timeout SEC` as seconds; undefined when not given. */
function parseTimeout(timeout: string | undefined): number | undefined {
  if (timeout === undefined) return undefined;
  const seconds = Number(timeout);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new ConfigError(`--timeout '${timeout}' is not a number of seconds`);
  return seconds;
}

/** `macs send <agent> [TEXT|-]`: operations/send-message.ts from the command line. */
export async function runSend(
  agent: string,
  text: string | undefined,
  opts: SendOptions,
  deps: CliDeps,
): Promise<number> {
  const ctx = createContext(opts, deps);
  // `<lead>/<teammate>`: a local lead's teammate, unless a host has that name.
  const teammate = await localTeammate(agent, ctx);
  if (teammate) agent = teammate;
  if (agent.includes('/')) {
    const { sendRemote } = await import('./send-remote.js');
    return sendRemote(agent, text, opts, deps, ctx);
  }
  if (!isValidAgentName(agent))
    throw new ConfigError(`agent name '${agent}' is not valid`, {
      hint: 'use letters, digits, . _ - (at most 64), starting with a letter or digit',
    });
  const timeoutSec = parseTimeout(opts.timeout);
  const input = await readSendText(text, deps, MAX_SEND_BYTES);
  const { config } = await ctx.loadConfig();
  const interrupt = new AbortController();
  void deps.interrupted.then(() => interrupt.abort());
  const outcome = await sendToAgent({
    agent,
    text: input,
    paths: ctx.paths,
    config,
    runTmux: deps.runTmux,
    ...(opts.tmuxSocket ? { socket: opts.tmuxSocket } : {}),
    ...(opts.preset ? { preset: opts.preset } : {}),
    ...(timeoutSec === undefined ? {} : { timeoutSec }),
    signal: interrupt.signal,
    onWaiting: (message) => deps.output.err(`macs send: ${message}`),
  });
  if (outcome.type === 'cancelled') return 130;
  const { data } = outcome;
  if (opts.json) deps.output.json({ agent, ...data });
  if (!data.confirmed) {
    deps.output.err(
      `macs send: typed ${data.chars} chars into ${outcome.shown} and pressed ${outcome.submitKey} ${String(data.submits)} time(s), but saw no sign the agent took them; not typed again`,
    );
    deps.output.err(
      `hint: look at the pane (tmux -L … capture-pane -p -t ${data.pane})`,
    );
    return 1;
  }
  if (!opts.json)
    deps.output.out(
      `sent ${data.chars} chars to ${outcome.shown}: ${outcome.how}`,
    );
  return 0;
}

/** The agent name of a teammate given as `<lead>/<teammate>`, if it is one. */
async function localTeammate(
  agent: string,
  ctx: CommandContext,
): Promise<string | undefined> {
  const lead = agent.split('/')[0] ?? '';
  if (lead === agent) return undefined;
  const named = await teammateNamed(ctx.paths, agent);
  if (!named) return undefined;
  const { config } = await ctx.loadConfig();
  return Object.hasOwn(config.hosts, lead) ? undefined : named;
}
