// `macs send`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import { Option, type Command } from 'commander';
import { ConfigError } from '../errors.js';
import { addCommonOptions, type CliDeps } from './options.js';
import type { SendOutcome } from '../operations/send-message.js';
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
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { sendToAgent },
    { localTeammate },
    { createContext },
    { readSendText },
  ] = await Promise.all([
    import('../operations/send-message.js'),
    import('../operations/send-target.js'),
    import('./common.js'),
    import('./send-text.js'),
  ]);
  const ctx = createContext(opts, deps);
  // `<lead>/<teammate>`: a local lead's teammate, unless a host has that name.
  const teammate = await localTeammate(ctx.paths, agent, async (lead) =>
    Object.hasOwn((await ctx.loadConfig()).config.hosts, lead),
  );
  if (teammate) agent = teammate;
  if (agent.includes('/')) {
    const { sendRemote } = await import('./send-remote.js');
    return sendRemote(agent, text, opts, deps, ctx);
  }
  await checkAgentName(agent);
  const timeoutSec = parseTimeout(opts.timeout);
  const input = await readSendText(text, deps, MAX_SEND_BYTES);
  const { config } = await ctx.loadConfig();
  const interrupt = new AbortController();
  void deps.interrupted.then(() => interrupt.abort());
  const outcome = await sendToAgent({
    ...{ agent, text: input, paths: ctx.paths, config, runTmux: deps.runTmux },
    ...(opts.tmuxSocket ? { socket: opts.tmuxSocket } : {}),
    ...(opts.preset ? { preset: opts.preset } : {}),
    ...(timeoutSec === undefined ? {} : { timeoutSec }),
    signal: interrupt.signal,
    onWaiting: (message) => deps.output.err(`macs send: ${message}`),
  });
  return outcome.type === 'cancelled'
    ? 130
    : printSent(agent, outcome, opts, deps);
}

/** An agent name that is not one is bad usage (before any text is read). */
async function checkAgentName(agent: string): Promise<void> {
  const { isValidAgentName } = await import('../protocol/ids.js');
  if (!isValidAgentName(agent))
    throw new ConfigError(`agent name '${agent}' is not valid`, {
      hint: 'use letters, digits, . _ - (at most 64), starting with a letter or digit',
    });
}

/** What was sent (or typed but not seen taken: 1), as lines or JSON. */
function printSent(
  agent: string,
  outcome: Extract<SendOutcome, { type: 'delivered' }>,
  opts: SendOptions,
  deps: CliDeps,
): number {
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

export function registerSendCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('send')
      .description(
        'type text into an agent safely: wait until it is idle, paste, submit, confirm',
      )
      .argument('<agent>', 'the agent name, e.g. worker-1')
      .argument(
        '[text]',
        'the text; `-` (or no text with piped stdin) reads stdin',
      )
      .addOption(
        new Option(
          '--preset <name>',
          "the agent's preset (default: its state file, the config, else the pane's program)",
        ).env('MACS_PRESET'),
      )
      .addOption(
        new Option(
          '--timeout <sec>',
          'give up when the agent is not idle within this many seconds (default: deliverTimeoutSec, 600)',
        ).env('MACS_SEND_TIMEOUT'),
      )
      .option('--json', 'print what was sent as JSON'),
  )
    .addHelpText(
      'after',
      `
The agent's pane is the one its bridge supervises (.macs/state/<agent>.json),
else the pane found for the name (pinned with macs target, tagged
@macs_agent=<agent>, a title with the name, or the preset's program).
Nothing is typed while the agent is working or shows a dialog; the text goes
in as one paste, then the submit key. When nothing shows the agent took it,
the submit key (never the text) is pressed again, up to submitRetries times.

Examples:
  macs send worker-1 "Run the tests again, then summarise the failures."
  git diff | macs send worker-1 -
  macs send worker-1 --timeout 60 "Stop after this step."

Exit: 0 sent and confirmed, 1 not sent or not confirmed (unknown agent, pane
gone, still busy at the timeout), 2 bad usage or config, 3 tmux missing or
unreachable, 130 interrupted.`,
    )
    .action((agent: string, text: string | undefined, opts: SendOptions) =>
      run(runSend(agent, text, opts, deps)),
    );
}
