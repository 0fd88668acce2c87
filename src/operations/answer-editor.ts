/**
 * A person's answer from the status view: written to `outbox/<id>.txt`
 * (`r`), or first edited in `$EDITOR` (`e`), and said in one line.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { splitResponse } from '../protocol/response.js';
import type { RunEditor } from '../backends/editor.js';
import type { HomePaths } from '../home/paths.js';
import type { RequestSnapshot } from '../state/snapshot-schema.js';
import type { IntentResult } from './view-intents.js';
import { describeUntyped } from '../protocol/sanitize.js';
import { writeOutboxAnswer, type WriteAnswerResult } from '../state/outbox.js';

/** Lines starting with this are the template's comments, removed before sending. */
export const TEMPLATE_COMMENT = '#|';

/** The file a person edits: the request as comments, then the two answer parts. */
export function buildAnswerTemplate(request: RequestSnapshot): string {
  const quoted = request.body
    .split('\n')
    .map((l) => `${TEMPLATE_COMMENT}   ${l}`);
  return [
    `${TEMPLATE_COMMENT} Answer to ${request.id} (${request.agent}, ${request.type}).`,
    `${TEMPLATE_COMMENT} Lines starting with "${TEMPLATE_COMMENT}" are removed. Save and quit to send;`,
    `${TEMPLATE_COMMENT} leave both parts empty to cancel. NOTES are never sent to the worker.`,
    `${TEMPLATE_COMMENT}`,
    `${TEMPLATE_COMMENT} The request:`,
    ...quoted,
    '',
    'WORKER INSTRUCTIONS:',
    '',
    '',
    'NOTES:',
    '',
  ].join('\n');
}

/** The answer in an edited template; undefined when the person wrote nothing. */
export function readEditedAnswer(text: string): string | undefined {
  const kept = text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .filter((l) => !l.startsWith(TEMPLATE_COMMENT))
    .join('\n')
    .trim();
  const parts = splitResponse(kept);
  if (!parts.instructions.trim() && !parts.notes.trim()) return undefined;
  return `${kept}\n`;
}

/** `$VISUAL`, else `$EDITOR`, else `vi`, split into argv (no shell). */
export function editorCommand(env: NodeJS.ProcessEnv): string[] {
  const value = (env.VISUAL ?? env.EDITOR ?? '').trim() || 'vi';
  return value.split(/\s+/);
}

/**
 * Answer a request in `$EDITOR`: a private temp file, then `outbox/<id>.txt`,
 * or `deliver` (a host's request at a hub: the path of `r`).
 */
export async function editAnswerInEditor(options: {
  paths: HomePaths;
  request: RequestSnapshot;
  env: NodeJS.ProcessEnv;
  runEditor: RunEditor;
  deliver?: (requestId: string, text: string) => Promise<IntentResult>;
}): Promise<IntentResult> {
  const { request } = options;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'macs-answer-'));
  // A host's id (`gpu1/<id>`) names no folder here.
  const file = path.join(dir, `${request.id.replace(/\//g, '_')}.md`);
  try {
    await writeFile(file, buildAnswerTemplate(request), { mode: 0o600 });
    const argv = [...editorCommand(options.env), file];
    const run = options.runEditor(argv);
    if (run.error !== undefined || run.exitCode !== 0)
      return {
        ok: false,
        message: `editor '${argv[0] ?? ''}' failed (${run.error ?? `exit ${String(run.exitCode)}`}); nothing was sent — set $EDITOR`,
      };
    const answer = readEditedAnswer(await readFile(file, 'utf8'));
    if (answer === undefined)
      return {
        ok: true,
        message: `nothing written; ${request.id} not answered`,
      };
    if (options.deliver) return await options.deliver(request.id, answer);
    return describeAnswerResult(
      request.id,
      await writeOutboxAnswer(options.paths, request.id, answer),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What the view says after trying to write an answer (`r`, `e`). */
export function describeAnswerResult(
  id: string,
  result: WriteAnswerResult,
): IntentResult {
  switch (result.type) {
    case 'written':
      return {
        ok: true,
        message: `answered ${id} (${result.chars} chars) -> outbox/${path.basename(result.file)}; the bridge delivers it${result.untyped > 0 ? `; ${describeUntyped(result.untyped)}` : ''}`,
      };
    case 'bad-id':
      return { ok: false, message: `'${id}' is not a request id` };
    case 'empty':
      return { ok: false, message: 'the answer is empty; nothing was written' };
    case 'not-pending':
      return { ok: false, message: `${id} is no longer pending` };
    case 'already-answered':
      return {
        ok: false,
        message: `${id} already has an answer waiting in outbox/`,
      };
    default: {
      const never: never = result;
      return never;
    }
  }
}
