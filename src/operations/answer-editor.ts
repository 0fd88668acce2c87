/**
 * A person's answer from the status view: written to `outbox/<id>.txt`
 * (`r`), or first edited in `$EDITOR` (`e`), and said in one line.
 */
import path from 'node:path';
import type { RunEditor } from '../backends/editor.js';
import type { HomePaths } from '../home/paths.js';
import { describeUntyped } from '../protocol/sanitize.js';
import type { RequestSnapshot } from '../state/snapshot-schema.js';
import { writeOutboxAnswer, type WriteAnswerResult } from '../state/outbox.js';
import { editAnswerText } from './answer-template.js';
import type { IntentResult } from './view-intents.js';

/**
 * Answer a request in `$EDITOR` (ui/answer-template.ts): then
 * `outbox/<id>.txt`, or `deliver` (a host's request at a hub: the path of
 * `r`).
 */
export async function editAnswerInEditor(options: {
  paths: HomePaths;
  request: RequestSnapshot;
  env: NodeJS.ProcessEnv;
  runEditor: RunEditor;
  deliver?: (requestId: string, text: string) => Promise<IntentResult>;
}): Promise<IntentResult> {
  const { request } = options;
  const edited = await editAnswerText(options);
  if (edited.type === 'failed') return { ok: false, message: edited.message };
  if (edited.type === 'empty')
    return { ok: true, message: `nothing written; ${request.id} not answered` };
  if (options.deliver) return options.deliver(request.id, edited.text);
  return describeAnswerResult(
    request.id,
    await writeOutboxAnswer(options.paths, request.id, edited.text),
  );
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
