import type { RunEditor } from '../backends/editor.js';
import type { HomePaths } from '../home/paths.js';
import type { RequestSnapshot } from '../state/snapshot-schema.js';
import type { IntentResult } from '../ui/intents.js';
import { editAnswerText } from '../ui/answer-template.js';
import { describeAnswerResult } from './status-answer.js';
import { writeOutboxAnswer } from '../state/outbox.js';

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
