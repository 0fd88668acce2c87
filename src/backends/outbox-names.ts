/**
 * The outbox's names and what they hold, as pure rules: which file names
 * are answers (`<id>.txt`) or dismissals (`<id>.dismiss`), what a
 * dismissal file says, and the reasons a file can be passed over. The file
 * backend applies them; `macs dismiss` writes the dismissal files.
 */
import { isSafeFileName } from '../protocol/ids.js';

/** Why an outbox file was passed over. */
export type OutboxRejection =
  | 'temp-file'
  | 'not-txt'
  | 'bad-name'
  | 'symlink'
  | 'hard-link'
  | 'not-a-file'
  | 'empty'
  | 'too-large'
  | 'not-utf8'
  | 'unknown-request'
  | 'already-answered'
  /** Written before its request was asked: never taken (planted answers). */
  | 'early'
  /** Owned by another user: never taken (SPEC §9). */
  | 'foreign-owner';

const TEMP_FILE = /(^\.|~$|\.swp$|\.swo$|\.swx$|\.tmp$|\.part$|^#.*#$)/;

/**
 * `outbox/<id>.dismiss`: `macs dismiss` asks the bridge to end a request
 * without an answer. JSON: the agent, the reason and who dismissed it.
 */
export const DISMISS_SUFFIX = '.dismiss';

export interface DismissFile {
  agent: string;
  reason: string;
  by: string;
}

/**
 * Pure: is this outbox file name one we should even look at? `<id>.txt` is
 * an answer, `<id>.dismiss` a dismissal.
 */
export function classifyOutboxName(
  name: string,
): { id: string; dismiss?: true } | { rejected: OutboxRejection } {
  if (TEMP_FILE.test(name)) return { rejected: 'temp-file' };
  const dismiss = name.endsWith(DISMISS_SUFFIX);
  if (!name.endsWith('.txt') && !dismiss) return { rejected: 'not-txt' };
  const id = name.slice(0, -(dismiss ? DISMISS_SUFFIX : '.txt').length);
  if (!isSafeFileName(id)) return { rejected: 'bad-name' };
  return dismiss ? { id, dismiss } : { id };
}

/** Pure: a dismissal file's content, or undefined when it is not one. */
export function parseDismissFile(text: string): DismissFile | undefined {
  try {
    const value = JSON.parse(text) as Partial<DismissFile>;
    if (typeof value.agent !== 'string' || !value.agent) return undefined;
    return {
      agent: value.agent,
      reason:
        typeof value.reason === 'string' ? value.reason.slice(0, 500) : '',
      by: typeof value.by === 'string' ? value.by.slice(0, 64) : 'person',
    };
  } catch {
    return undefined;
  }
}
