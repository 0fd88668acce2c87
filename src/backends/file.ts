/**
 * The file backend's watch on `outbox/`: every file that appears is checked
 * (name, kind, owner, size, encoding) and, when it answers or dismisses a
 * request of one of this bridge's agents, handed to that agent's
 * supervisor. The pieces it uses live next to it: the outbox's naming rules
 * (outbox-names.ts), reading a file safely (outbox-read.ts), refusing one
 * (outbox-reject.ts) and the inbox's files (inbox-files.ts).
 */
import type { Stats } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { EventSink } from '../events/log.js';
import type { Logger } from '../log/logger.js';
import { ensurePrivateDir } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';
import { MAX_OUTBOX_BYTES } from '../state/outbox.js';
import { readInboxMeta, writeInboxRequest } from './inbox-files.js';
import {
  DISMISS_SUFFIX,
  classifyOutboxName,
  parseDismissFile,
  type OutboxRejection,
} from './outbox-names.js';
import { isForeign, lstatSafe, readChecked } from './outbox-read.js';
import { REJECTED_DIR, createOutboxRejecter } from './outbox-reject.js';
import type {
  AnswerHandler,
  BackendRequest,
  ControllerBackend,
} from './types.js';

/**
 * A temp file is reported only if it lingers this long: write-then-rename
 * (the recommended way to answer) leaves one for a moment, which is not news.
 */
/** From this size an outbox file must be still for SETTLE_MS before it is read. */
const SETTLE_FROM_BYTES = 256 * 1024;
/** How long a large outbox file must not change before it is read. */
const SETTLE_MS = 150;

export const TEMP_FILE_GRACE_MS = 1000;

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
  const { paths, log } = options;
  const handlers = new Map<string, AnswerHandler>();
  const { warn, reject, forget } = createOutboxRejecter(options);
  const inFlight = new Set<string>();
  /** When each temp file was first seen. */
  const tempSeen = new Map<string, number>();
  let watcher: FSWatcher | undefined;
  /** Large files waiting to be still (SETTLE_MS), by name. */
  const settling = new Map<string, NodeJS.Timeout>();
  let inboxReady: Promise<void> | undefined;
  let poller: NodeJS.Timeout | undefined;

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
    const info = lstatSafe(file);
    if (!info) {
      forget(name);
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
    const meta = readInboxMeta(paths.inbox, id);
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
    // A large file written in place (not renamed into place) may still be
    // growing between two writes of its writer, with nothing to tell: it is
    // read only once it has been still for a moment (SPEC §4: read when it
    // is complete). Small answers, and `macs respond`'s renames, go at once.
    const still = Date.now() - info.mtimeMs;
    if (info.size >= SETTLE_FROM_BYTES && still < SETTLE_MS) {
      if (!settling.has(name))
        settling.set(
          name,
          setTimeout(
            () => {
              settling.delete(name);
              void checkOutboxFile(name);
            },
            SETTLE_MS - still + 5,
          ),
        );
      return;
    }
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
      await writeInboxRequest(paths.inbox, request);
    },
    rescan,
    async stop() {
      if (poller) clearInterval(poller);
      for (const timer of settling.values()) clearTimeout(timer);
      settling.clear();
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
