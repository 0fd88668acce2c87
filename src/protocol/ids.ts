/**
 * Request ids, body hashes and file-name safety (SPEC §2, §4). Pure.
 */
import { createHash } from 'node:crypto';

/** What a request attribute value may look like (SPEC §2). */
export const ATTRIBUTE_VALUE = /^[A-Za-z0-9._:-]{1,64}$/;

/** What an agent name may look like: it becomes part of file names. */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const SAFE_FILE_NAME = /^[A-Za-z0-9._:-]{1,200}$/;

/** True when `name` can be used as an agent name. */
export function isValidAgentName(name: string): boolean {
  return AGENT_NAME.test(name);
}

/** The sha1 of the UTF-8 encoded body, as 40 lowercase hex digits. */
export function hashBody(body: string): string {
  return createHash('sha1').update(body, 'utf8').digest('hex');
}

/**
 * True when `name` is safe as a single file name on every platform macs runs
 * on: 1-200 characters from `[A-Za-z0-9._:-]`, not starting with a dot (which
 * also rules out `.` and `..` and hidden files).
 */
export function isSafeFileName(name: string): boolean {
  return SAFE_FILE_NAME.test(name) && !name.startsWith('.');
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/** `YYYYMMDDTHHMMSS` in UTC. */
function formatCompactUtc(now: Date): string {
  return (
    String(now.getUTCFullYear()).padStart(4, '0') +
    pad2(now.getUTCMonth() + 1) +
    pad2(now.getUTCDate()) +
    'T' +
    pad2(now.getUTCHours()) +
    pad2(now.getUTCMinutes()) +
    pad2(now.getUTCSeconds())
  );
}

/**
 * The id of a request (SPEC §4): `<agent>-<workerId>` when the worker gave an
 * `id` attribute, else `<agent>-<YYYYMMDDTHHMMSS>-<first 8 hex of sha1(body)>`.
 *
 * Throws a plain Error on an invalid agent name, an invalid worker id or an
 * invalid date: those are programming errors (both names are validated where
 * they enter macs), and the result must always be a safe file name.
 */
export function makeRequestId(input: {
  agent: string;
  workerId?: string;
  body: string;
  now: Date;
}): string {
  const { agent, workerId, body, now } = input;
  if (!isValidAgentName(agent)) {
    throw new Error(
      `invalid agent name for a request id: ${JSON.stringify(agent)}`,
    );
  }
  let id: string;
  if (workerId !== undefined) {
    if (!ATTRIBUTE_VALUE.test(workerId)) {
      throw new Error(`invalid worker request id: ${JSON.stringify(workerId)}`);
    }
    id = `${agent}-${workerId}`;
  } else {
    if (Number.isNaN(now.getTime())) {
      throw new Error('invalid date for a request id');
    }
    id = `${agent}-${formatCompactUtc(now)}-${hashBody(body).slice(0, 8)}`;
  }
  if (!isSafeFileName(id)) {
    // Unreachable with the patterns above; kept as a guard for future edits.
    throw new Error(
      `request id is not a safe file name: ${JSON.stringify(id)}`,
    );
  }
  return id;
}
