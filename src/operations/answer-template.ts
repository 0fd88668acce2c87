/**
 * Answering a request in `$EDITOR` (the status view's `e`): the template a
 * person edits (the request as comments, then the two answer parts) in a
 * private temp file, and the answer read back from it.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { RunEditor } from '../backends/editor.js';
import { splitResponse } from '../protocol/response.js';
import type { RequestSnapshot } from '../state/snapshot-schema.js';

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

/** What the person did in the editor. */
export type EditedAnswer =
  | { type: 'failed'; message: string }
  | { type: 'empty' }
  | { type: 'answer'; text: string };

/**
 * Let a person write the answer to `request` in `$EDITOR`, in a private
 * temp file removed afterwards: the answer, nothing written, or the
 * editor's failure.
 */
export async function editAnswerText(options: {
  request: RequestSnapshot;
  env: NodeJS.ProcessEnv;
  runEditor: RunEditor;
}): Promise<EditedAnswer> {
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
        type: 'failed',
        message: `editor '${argv[0] ?? ''}' failed (${run.error ?? `exit ${String(run.exitCode)}`}); nothing was sent — set $EDITOR`,
      };
    const answer = readEditedAnswer(await readFile(file, 'utf8'));
    return answer === undefined
      ? { type: 'empty' }
      : { type: 'answer', text: answer };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
