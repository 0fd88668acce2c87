/**
 * Refusing an outbox file: each refusal is reported (a log line and an
 * `outbox.ignored` event, once per version of the file), and a file that
 * has stopped changing is moved to `outbox/rejected/` with a note of why,
 * so it neither blocks the next answer for its id nor is reported again at
 * every start.
 */
import { linkSync, renameSync, unlinkSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { EventSink } from '../events/log.js';
import type { Logger } from '../log/logger.js';
import { ensurePrivateDir, writeFileAtomic } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';
import { MAX_OUTBOX_BYTES } from '../state/outbox.js';
import type { OutboxRejection } from './outbox-names.js';
import { lstatSafe } from './outbox-read.js';

/**
 * `outbox/rejected/`: where a refused outbox file is moved (with a
 * `<name>.why` note), once, so it neither blocks the next answer for its id
 * nor is reported again at every start.
 */
export const REJECTED_DIR = 'rejected';
/**
 * A refused file is moved once it has not changed for this long: a writer
 * that does not write then rename may still be filling it (empty now, or
 * cut in the middle of a character). Until then it is only reported.
 */
const REJECT_GRACE_MS = 1000;
/** The agent name under which bridge-wide warnings (no agent known) are logged. */
export const BRIDGE_EVENT_AGENT = 'bridge';

/** What each refusal means, for the note next to a moved file. */
const REJECTION_WORDS: Record<OutboxRejection, string> = {
  'temp-file': 'an editor temp file',
  'not-txt': 'not <id>.txt or <id>.dismiss',
  'bad-name': 'the name is not a request id',
  symlink: 'a symbolic link (never followed)',
  'hard-link': 'a second name for another file (never read)',
  'not-a-file': 'not a regular file',
  empty: 'empty',
  'too-large': `larger than ${MAX_OUTBOX_BYTES} bytes`,
  'not-utf8': 'not UTF-8 text',
  'unknown-request': 'no pending request has this id',
  'already-answered': 'the request was already answered',
  early:
    'it was there before its request was asked; an answer is only taken for a request already detected',
  'foreign-owner': 'owned by another user; only your own files are answers',
};

export interface OutboxRejecter {
  /**
   * Report a file passed over, once per `version` of it (its size and
   * mtime, or any other token that changes when the file does).
   */
  warn: (
    name: string,
    version: string,
    reason: OutboxRejection,
    agent?: string,
    requestId?: string,
    movedTo?: string,
  ) => Promise<void>;
  /**
   * Refuse an outbox file: report it, and once it has stopped changing move
   * it to `outbox/rejected/` with a note of why (the link itself, never
   * what it points at). Editor temp files are only reported: their editor
   * owns them.
   */
  reject: (
    name: string,
    info: Stats,
    version: string,
    reason: OutboxRejection,
    agent?: string,
    requestId?: string,
  ) => Promise<void>;
  /** The file is gone: a new file of that name is reported afresh. */
  forget: (name: string) => void;
}

/** The same file, unchanged: inode, size and modification time. */
function sameFile(now: Stats | undefined, judged: Stats): boolean {
  return (
    now !== undefined &&
    now.ino === judged.ino &&
    now.size === judged.size &&
    now.mtimeMs === judged.mtimeMs
  );
}

export function createOutboxRejecter(options: {
  paths: HomePaths;
  events: EventSink;
  log: Logger;
}): OutboxRejecter {
  const { paths, events, log } = options;
  /** A warning is given once per file version, not on every poll. */
  const warned = new Map<string, string>();

  async function warn(
    name: string,
    version: string,
    reason: OutboxRejection,
    agent?: string,
    requestId?: string,
    movedTo?: string,
  ): Promise<void> {
    if (warned.get(name) === `${version}:${reason}`) return;
    warned.set(name, `${version}:${reason}`);
    log.warn({ file: name, reason }, 'outbox file ignored');
    await events.emit({
      agent: agent ?? BRIDGE_EVENT_AGENT,
      type: 'outbox.ignored',
      ...(requestId ? { requestId } : {}),
      data: {
        file: `outbox/${name}`,
        reason,
        ...(movedTo ? { movedTo: `outbox/${REJECTED_DIR}/${movedTo}` } : {}),
      },
    });
  }

  async function reject(
    name: string,
    info: Stats,
    version: string,
    reason: OutboxRejection,
    agent?: string,
    requestId?: string,
  ): Promise<void> {
    const settled =
      reason === 'early' || Date.now() - info.mtimeMs >= REJECT_GRACE_MS;
    if (reason === 'temp-file' || !settled)
      return warn(name, version, reason, agent, requestId);
    const dir = path.join(paths.outbox, REJECTED_DIR);
    await ensurePrivateDir(dir);
    let target = name;
    if (lstatSafe(path.join(dir, target))) target = `${name}.${Date.now()}`;
    const from = path.join(paths.outbox, name);
    const to = path.join(dir, target);
    // Only the version that was judged is moved: a writer may have filled
    // the file since (created empty, then written), and the next look
    // judges what it holds now.
    if (!sameFile(lstatSafe(from), info)) return;
    try {
      renameSync(from, to);
    } catch (error) {
      log.warn({ err: error, file: name }, 'could not move a rejected file');
      return warn(name, version, reason, agent, requestId);
    }
    if (!sameFile(lstatSafe(to), info)) {
      // Changed between the look and the move: back under its name (never
      // over a file that took the name meanwhile), for the next look.
      try {
        linkSync(to, from);
        unlinkSync(to);
        return;
      } catch (error) {
        log.warn({ err: error, file: name }, 'could not put a file back');
      }
    }
    await writeFileAtomic(
      path.join(dir, `${target}.why`),
      `${reason}: ${REJECTION_WORDS[reason]}\nmoved from outbox/ ${new Date().toISOString()}\n`,
    );
    warned.delete(name);
    await warn(name, `moved:${target}`, reason, agent, requestId, target);
  }

  return {
    warn,
    reject,
    forget(name) {
      warned.delete(name);
    },
  };
}
