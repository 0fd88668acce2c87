import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describeUntyped } from '../protocol/sanitize.js';
import { assertNever, ConfigError, MacsError } from '../errors.js';
import { isSafeFileName } from '../protocol/ids.js';
import { findIncompleteById, INCOMPLETE_FIX } from '../state/incomplete.js';
import { MAX_OUTBOX_BYTES, writeOutboxAnswer } from '../state/outbox.js';
import { readAllAgentStates } from '../state/pending.js';
import { createContext, loadConfigOrDefaults } from './common.js';
import { remoteTargetOf } from './remote.js';
import type { CliDeps, CommonOptions } from './options.js';

export interface RespondOptions extends CommonOptions {
  file?: string;
  force?: boolean;
}

/**
 * Answer a pending request: write `outbox/<id>.txt` atomically (temp file +
 * rename), which the bridge picks up at once.
 */
export async function runRespond(
  id: string,
  text: string | undefined,
  opts: RespondOptions,
  deps: CliDeps,
): Promise<number> {
  const ctx = createContext(opts, deps);
  const { config } = await loadConfigOrDefaults(ctx, opts, deps);
  const remote = remoteTargetOf(id, 'request', config, deps.env);
  if (!remote && !isSafeFileName(id)) {
    throw new ConfigError(`'${id}' is not a request id`, {
      hint: 'see the ids with `macs inbox`',
    });
  }
  let answer: string;
  if (opts.file !== undefined) {
    if (text !== undefined)
      throw new ConfigError('give the answer as TEXT or with --file, not both');
    answer = await readFile(path.resolve(deps.cwd, opts.file), 'utf8');
  } else if (text === '-' || (text === undefined && !deps.stdinIsTTY)) {
    // No longer than an outbox file may be (SPEC §4): a bounded read.
    answer = await deps.readStdin(MAX_OUTBOX_BYTES);
  } else if (text !== undefined) {
    answer = text;
  } else {
    throw new ConfigError('no answer given', {
      hint: 'macs respond <id> "text", --file F, or - to read stdin',
    });
  }
  if (remote) {
    const { respondRemote } = await import('./respond-remote.js');
    return respondRemote(
      ctx,
      config,
      deps,
      remote.target.name,
      remote.name,
      answer,
    );
  }
  const result = await writeOutboxAnswer(ctx.paths, id, answer, {
    force: opts.force === true,
  });
  switch (result.type) {
    case 'written':
      break;
    case 'bad-id':
      throw new ConfigError(`'${id}' is not a request id`, {
        hint: 'see the ids with `macs inbox`',
      });
    case 'empty':
      throw new ConfigError('the answer is empty; nothing was written');
    case 'not-pending': {
      // A block without its end marker that will have this id (issue 29):
      // not a request yet, so there is nothing to answer.
      const incomplete = findIncompleteById(
        await readAllAgentStates(ctx.paths).catch(() => []),
        id,
      );
      if (incomplete)
        throw new MacsError(
          `'${id}' is an incomplete request: ${incomplete.agent} printed its start marker but not its end marker, so it cannot be answered yet (nothing was written)`,
          {
            hint: `${INCOMPLETE_FIX}; tell it with macs send ${incomplete.agent} "…". Once it ends it is in the inbox to answer`,
          },
        );
      throw new MacsError(`no pending request '${id}' in ${result.inbox}`, {
        hint: 'list pending requests with `macs inbox` (check --home); --force writes the answer anyway',
      });
    }
    case 'already-answered':
      throw new MacsError(
        `request '${id}' already has an answer waiting (${result.file})`,
        {
          hint: 'use --force to replace it',
        },
      );
    default:
      assertNever(result);
  }
  const target = result.file;
  deps.output.out(
    `answered ${id} (${answer.length} chars) -> ${path.relative(deps.cwd, target) || target}`,
  );
  if (result.untyped > 0)
    deps.output.err(`macs respond: ${describeUntyped(result.untyped)}`);
  return 0;
}
