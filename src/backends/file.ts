import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  renameSync,
  type Stats,
} from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { EventSink } from '../events/log.js';
import type { Logger } from '../log/logger.js';
import { isSafeFileName } from '../protocol/ids.js';
import { escapeInvisible, hasInvisible } from '../protocol/sanitize.js';
import { ensurePrivateDir, homePolicy, writeFileAtomic } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';
import type {
  AnswerHandler,
  BackendRequest,
  ControllerBackend,
} from './types.js';

import { MAX_OUTBOX_BYTES } from '../state/outbox.js';

export { MAX_OUTBOX_BYTES };
/**
 * A temp file is reported only if it lingers this long: write-then-rename
 * (the recommended way to answer) leaves one for a moment, which is not news.
 */
export const TEMP_FILE_GRACE_MS = 1000;
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
export const REJECT_GRACE_MS = 1000;
/** The agent name under which bridge-wide warnings (no agent known) are logged. */
export const BRIDGE_EVENT_AGENT = 'bridge';

/** Metadata written next to each inbox body: `inbox/<id>.json`. */
export interface InboxMeta {
  id: string;
  agent: string;
  workerId?: string;
  type: string;
  priority: string;
  attributes: Record<string, string>;
  detectedAt: string;
  preset: string;
  hash: string;
  backend: 'file';
  /** The body held invisible or direction-changing characters (shown escaped). */
  invisible?: true;
  /** The output it came in hid text from the person (concealed SGR). */
  concealed?: true;
  context?: unknown;
}

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

export interface FileBackend extends ControllerBackend {
  /** Route answers for this agent's requests to its handler. */
  register(agent: string, onAnswer: AnswerHandler): void;
  start(): Promise<void>;
  /** Check one outbox file now (the watcher calls this). */
  checkOutboxFile(name: string): Promise<void>;
  /**
   * A request was just detected: an answer or dismissal already waiting for
   * its id was planted before anyone could see the question. Move it aside.
   */
  refuseEarly(id: string, agent: string): Promise<void>;
}

export interface FileBackendOptions {
  paths: HomePaths;
  events: EventSink;
  log: Logger;
  /** Backstop rescan of the outbox, for a lost notification (default 2 s). */
  backstopMs?: number;
}

/**
 * The file backend (SPEC §3, §4): requests go to `inbox/`, a person or any
 * program answers in `outbox/<id>.txt`. Waiting blocks nothing: the outbox is
 * watched, and answers are dispatched to the agent that asked.
 */
export function createFileBackend(options: FileBackendOptions): FileBackend {
  const { paths, events, log } = options;
  const handlers = new Map<string, AnswerHandler>();
  /** A warning is given once per file version, not on every poll. */
  const warned = new Map<string, string>();
  const inFlight = new Set<string>();
  /** When each temp file was first seen. */
  const tempSeen = new Map<string, number>();
  let watcher: FSWatcher | undefined;
  let inboxReady: Promise<void> | undefined;
  let poller: NodeJS.Timeout | undefined;

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

  /**
   * Refuse an outbox file: report it, and once it has stopped changing move
   * it to `outbox/rejected/` with a note of why (the link itself, never
   * what it points at). Editor temp files are only reported: their editor
   * owns them.
   */
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
    try {
      renameSync(path.join(paths.outbox, name), path.join(dir, target));
    } catch (error) {
      log.warn({ err: error, file: name }, 'could not move a rejected file');
      return warn(name, version, reason, agent, requestId);
    }
    await writeFileAtomic(
      path.join(dir, `${target}.why`),
      `${reason}: ${REJECTION_WORDS[reason]}\nmoved from outbox/ ${new Date().toISOString()}\n`,
    );
    warned.delete(name);
    await warn(name, `moved:${target}`, reason, agent, requestId, target);
  }

  // The reads below are small files read synchronously: they sit between an
  // answer being written and it being typed, and a call through the thread
  // pool waits its turn on a busy machine.
  function readInboxMeta(id: string): InboxMeta | undefined {
    try {
      return JSON.parse(
        readFileSync(path.join(paths.inbox, `${id}.json`), 'utf8'),
      ) as InboxMeta;
    } catch {
      return undefined;
    }
  }

  async function checkOutboxFile(name: string): Promise<void> {
    if (inFlight.has(name)) return;
    inFlight.add(name);
    try {
      await inspect(name);
    } catch (error) {
      log.error({ err: error, file: name }, 'outbox check failed');
    } finally {
      inFlight.delete(name);
    }
  }

  async function inspect(name: string): Promise<void> {
    if (name === REJECTED_DIR) return;
    const file = path.join(paths.outbox, name);
    let info;
    try {
      info = lstatSync(file);
    } catch {
      warned.delete(name);
      tempSeen.delete(name);
      return; // gone already (delivered and cleaned up, or renamed away)
    }
    const version = `${info.size}:${info.mtimeMs}`;
    const verdict = classifyOutboxName(name);
    if ('rejected' in verdict) {
      if (verdict.rejected === 'temp-file') {
        const first = tempSeen.get(name) ?? Date.now();
        tempSeen.set(name, first);
        if (Date.now() - first < TEMP_FILE_GRACE_MS) return;
        return warn(name, 'lingering', verdict.rejected);
      }
      return reject(name, info, version, verdict.rejected);
    }
    const { id } = verdict;
    if (verdict.dismiss) return inspectDismissal(name, file, info, version, id);
    const meta = readInboxMeta(id);
    if (meta && !handlers.has(meta.agent)) return; // another bridge's request
    const agent = meta?.agent;
    const refuse = (reason: OutboxRejection, who = agent) =>
      reject(name, info, version, reason, who, id);
    if (info.isSymbolicLink()) return refuse('symlink');
    if (!info.isFile()) return refuse('not-a-file');
    if (isForeign(info)) return refuse('foreign-owner');
    // A second name for another file (`ln ~/.ssh/id_rsa outbox/<id>.txt`)
    // would type that file's content into the worker, as a symlink would.
    if (info.nlink > 1) return refuse('hard-link');
    if (info.size === 0) return refuse('empty');
    if (info.size > MAX_OUTBOX_BYTES) return refuse('too-large');
    if (!meta) return refuse('unknown-request', undefined);
    const bytes = readChecked(file, info);
    if (!bytes) return refuse('symlink');
    // A writer still going: the file changed while we read it; the watcher calls again.
    const after = lstatSafe(file);
    if (!after || after.size !== info.size || after.mtimeMs !== info.mtimeMs)
      return;
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return refuse('not-utf8');
    }
    const handler = handlers.get(meta.agent);
    if (!handler) return;
    const result = await handler({ id, text, source: `outbox/${name}` });
    if (result === 'unknown-request')
      await refuse('unknown-request', meta.agent);
    // 'already-answered': a leftover of a crash between answer and clean-up; the supervisor finishes it.
  }

  /** `outbox/<id>.dismiss`: hand the dismissal to the agent's supervisor. */
  async function inspectDismissal(
    name: string,
    file: string,
    info: Stats,
    version: string,
    id: string,
  ): Promise<void> {
    if (info.isSymbolicLink()) return reject(name, info, version, 'symlink');
    if (isForeign(info)) return reject(name, info, version, 'foreign-owner');
    if (!info.isFile() || info.nlink > 1 || info.size > MAX_OUTBOX_BYTES)
      return reject(name, info, version, 'not-a-file');
    const bytes = readChecked(file, info);
    const dismissal = bytes
      ? parseDismissFile(bytes.toString('utf8'))
      : undefined;
    if (!dismissal) return; // being written, or not ours to read: the writer owns it
    const handler = handlers.get(dismissal.agent);
    if (!handler) return; // another bridge's agent
    const result = await handler({
      id,
      text: '',
      source: `outbox/${name}`,
      dismiss: { reason: dismissal.reason, by: dismissal.by },
    });
    if (result === 'unknown-request')
      await reject(name, info, version, 'unknown-request', dismissal.agent, id);
  }

  /**
   * Read the file the checks were made on: opened without following a link
   * (and without waiting on a FIFO), then checked again on the open handle,
   * so a file swapped for a link between the check and the read is refused,
   * not read. Undefined when the file is no longer the one checked.
   */
  function readChecked(file: string, checked: Stats): Buffer | undefined {
    let fd: number;
    try {
      fd = openSync(
        file,
        fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK,
      );
    } catch {
      return undefined;
    }
    try {
      const now = fstatSync(fd);
      if (
        !now.isFile() ||
        now.nlink > 1 ||
        now.ino !== checked.ino ||
        now.dev !== checked.dev ||
        isForeign(now)
      )
        return undefined;
      return readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** Another user's file (unless the home is shared on purpose). */
  function isForeign(info: Stats): boolean {
    const uid = process.getuid?.();
    return uid !== undefined && info.uid !== uid && !homePolicy.allowShared;
  }

  function lstatSafe(file: string): Stats | undefined {
    try {
      return lstatSync(file);
    } catch {
      return undefined;
    }
  }

  async function rescan(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(paths.outbox);
    } catch {
      return;
    }
    for (const name of names.sort()) await checkOutboxFile(name);
  }

  return {
    name: 'file',
    register(agent, onAnswer) {
      handlers.set(agent, onAnswer);
    },
    async start() {
      await ensurePrivateDir(paths.inbox);
      await ensurePrivateDir(paths.outbox);
      watcher = watch(paths.outbox, {
        ignoreInitial: true,
        depth: 0,
        awaitWriteFinish: false,
        atomic: false,
      });
      const onPath = (file: string) => {
        if (path.dirname(file) !== paths.outbox) return;
        void checkOutboxFile(path.basename(file));
      };
      watcher.on('add', onPath).on('change', onPath);
      // The raw notification names the file at once; chokidar's own `add`
      // comes a few milliseconds later, after its checks (both are harmless
      // together: a file is checked once at a time, and again only if it changed).
      watcher.on('raw', (_event: string, name: string) => {
        if (name && !name.includes('/') && name !== '.' && name !== '..')
          void checkOutboxFile(name);
      });
      watcher.on('error', (error) =>
        log.error({ err: error }, 'outbox watcher error'),
      );
      await new Promise<void>((resolve) =>
        watcher?.once('ready', () => resolve()),
      );
      // Backstop: a lost notification never leaves an answer unread.
      poller = setInterval(() => void rescan(), options.backstopMs ?? 2000);
      poller.unref();
      await rescan();
    },
    async submit(request: BackendRequest) {
      inboxReady ??= ensurePrivateDir(paths.inbox);
      await inboxReady;
      const meta: InboxMeta = {
        id: request.id,
        agent: request.agent,
        ...(request.workerId ? { workerId: request.workerId } : {}),
        type: request.type,
        priority: request.priority,
        attributes: request.attributes,
        detectedAt: request.detectedAt,
        preset: request.preset,
        hash: request.bodyHash,
        backend: 'file',
        ...(hasInvisible(request.body) ? { invisible: true } : {}),
        ...(request.concealed ? { concealed: true } : {}),
        ...(request.context ? { context: request.context } : {}),
      };
      // Body first, metadata last: a reader that sees the .json sees the .txt.
      // Shown as a person sees it: invisible characters escaped (<U+202E>).
      await writeFileAtomic(
        path.join(paths.inbox, `${request.id}.txt`),
        escapeInvisible(request.body),
      );
      await writeFileAtomic(
        path.join(paths.inbox, `${request.id}.json`),
        `${JSON.stringify(meta, null, 2)}\n`,
      );
    },
    rescan,
    async stop() {
      if (poller) clearInterval(poller);
      await watcher?.close();
    },
    checkOutboxFile,
    async refuseEarly(id, agent) {
      for (const name of [`${id}.txt`, `${id}${DISMISS_SUFFIX}`]) {
        const info = lstatSafe(path.join(paths.outbox, name));
        if (info)
          await reject(
            name,
            info,
            `${info.size}:${info.mtimeMs}`,
            'early',
            agent,
            id,
          );
      }
    },
  };
}
