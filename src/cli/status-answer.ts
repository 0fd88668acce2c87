import path from 'node:path';
import { describeUntyped } from '../protocol/sanitize.js';
import type { WriteAnswerResult } from '../state/outbox.js';
import type { IntentResult } from '../ui/intents.js';

/** What the view says after trying to write an answer. */
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
