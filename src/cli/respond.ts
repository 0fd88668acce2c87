// `macs respond`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { assertNever, ConfigError, MacsError } from '../errors.js';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';
import type { Command } from 'commander';
import type { RespondResult } from '../operations/answer-request.js';
import type { HostAnswerOutcome } from '../operations/answer-host.js';

export interface RespondOptions extends CommonOptions {
  file?: string;
  force?: boolean;
}

/** The answer: TEXT, `--file F`, or stdin (`-`, or no TEXT on a pipe). */
async function readAnswer(
  text: string | undefined,
  opts: RespondOptions,
  deps: CliDeps,
): Promise<string> {
  if (opts.file !== undefined) {
    if (text !== undefined)
      throw new ConfigError('give the answer as TEXT or with --file, not both');
    return readFile(path.resolve(deps.cwd, opts.file), 'utf8');
  }
  // No longer than an outbox file may be (SPEC §4): a bounded read.
  if (text === '-' || (text === undefined && !deps.stdinIsTTY)) {
    const { MAX_OUTBOX_BYTES } = await import('../state/outbox.js');
    return deps.readStdin(MAX_OUTBOX_BYTES);
  }
  if (text !== undefined) return text;
  throw new ConfigError('no answer given', {
    hint: 'macs respond <id> "text", --file F, or - to read stdin',
  });
}

/** The answer written, or the error that says why it was not. */
async function checkWritten(
  id: string,
  result: RespondResult,
): Promise<Extract<RespondResult, { type: 'written' }>> {
  switch (result.type) {
    case 'written':
      return result;
    case 'bad-id':
      throw new ConfigError(`'${id}' is not a request id`, {
        hint: 'see the ids with `macs inbox`',
      });
    case 'empty':
      throw new ConfigError('the answer is empty; nothing was written');
    case 'incomplete': {
      const { INCOMPLETE_FIX } =
        await import('../state/incomplete-requests.js');
      const { agent } = result.incomplete;
      throw new MacsError(
        `'${id}' is an incomplete request: ${agent} printed its start marker but not its end marker, so it cannot be answered yet (nothing was written)`,
        {
          hint: `${INCOMPLETE_FIX}; tell it with macs send ${agent} "…". Once it ends it is in the inbox to answer`,
        },
      );
    }
    case 'not-pending':
      throw new MacsError(`no pending request '${id}' in ${result.inbox}`, {
        hint: 'list pending requests with `macs inbox` (check --home); --force writes the answer anyway',
      });
    case 'already-answered':
      throw new MacsError(
        `request '${id}' already has an answer waiting (${result.file})`,
        {
          hint: 'use --force to replace it',
        },
      );
    default:
      return assertNever(result);
  }
}

/**
 * Answer a pending request: write `outbox/<id>.txt` atomically (temp file +
 * rename), which the bridge picks up at once; `<host>/<id>`: the host's
 * request, answered there (operations/answer-host.ts).
 */
export async function runRespond(
  id: string,
  text: string | undefined,
  opts: RespondOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { describeUntyped },
    { isSafeFileName },
    { respondToRequest },
    { remoteTargetOf },
    { answerOnHost },
    { createContext, loadConfigOrDefaults },
  ] = await Promise.all([
    import('../protocol/sanitize.js'),
    import('../protocol/ids.js'),
    import('../operations/answer-request.js'),
    import('../operations/host-forward.js'),
    import('../operations/answer-host.js'),
    import('./common.js'),
  ]);
  const ctx = createContext(opts, deps);
  const { config } = await loadConfigOrDefaults(ctx, opts, deps);
  const remote = remoteTargetOf(id, 'request', config, deps.env);
  if (!remote && !isSafeFileName(id)) {
    throw new ConfigError(`'${id}' is not a request id`, {
      hint: 'see the ids with `macs inbox`',
    });
  }
  const answer = await readAnswer(text, opts, deps);
  if (remote) {
    const host = remote.target.name;
    const hub = { config, env: deps.env, paths: ctx.paths, log: ctx.log };
    const outcome = await answerOnHost(hub, {
      ...{ host, id: remote.name, text: answer },
      by: 'hub:respond',
    });
    deps.output.out(describeHostAnswer(outcome, host, remote.name, answer));
    return 0;
  }
  const result = await respondToRequest(ctx.paths, id, answer, {
    force: opts.force === true,
  });
  const { file, untyped } = await checkWritten(id, result);
  deps.output.out(
    `answered ${id} (${answer.length} chars) -> ${path.relative(deps.cwd, file) || file}`,
  );
  if (untyped > 0) deps.output.err(`macs respond: ${describeUntyped(untyped)}`);
  return 0;
}

/** An answer to a host's request, said in one line; an error when not taken. */
function describeHostAnswer(
  outcome: HostAnswerOutcome,
  host: string,
  id: string,
  text: string,
): string {
  const qualified = `${host}/${id}`;
  switch (outcome.type) {
    case 'answered':
      return `answered ${qualified} (${text.length} chars) on ${host}`;
    case 'held':
      return `host ${host} cannot be reached now: the answer to ${qualified} is kept (${outcome.file}) and delivered once when it is back`;
    case 'held-already':
      throw new MacsError(
        `an answer to ${qualified} is already kept for ${host}`,
        {
          hint: 'it is delivered once the host is back; a request is answered once',
        },
      );
    case 'refused':
      throw new MacsError(
        `host ${host} refused the answer to ${id}: ${outcome.reason}`,
        { hint: 'list pending requests with `macs inbox`' },
      );
  }
}

export function registerRespondCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('respond')
      .description(
        'answer a pending request (writes outbox/<id>.txt, which the bridge delivers)',
      )
      .argument('<id>', 'the request id, as `macs inbox` lists it')
      .argument(
        '[text]',
        'the answer; `-` (or no text with piped stdin) reads stdin',
      )
      .option('--file <file>', 'read the answer from a file')
      .option(
        '--force',
        'write even if the request is not pending or already answered',
      )
      .addHelpText(
        'after',
        `
The answer may hold a "WORKER INSTRUCTIONS:" part (sent to the worker) and a
"NOTES:" part (kept for people, never sent). Text without headers is all
instructions.

Examples:
  macs respond worker-1-q-17 "Migrate after the API change."
  macs respond worker-1-q-17 --file answer.md
  printf 'WORKER INSTRUCTIONS:\\nGo ahead.\\n\\nNOTES:\\nWatch the tests.\\n' |
    macs respond worker-1-q-17 -`,
      ),
  ).action((id: string, text: string | undefined, opts: RespondOptions) =>
    run(runRespond(id, text, opts, deps)),
  );
}
