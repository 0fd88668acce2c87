import { open, stat } from 'node:fs/promises';
import type {
  BackendAnswer,
  AnswerVerdict,
  ControllerBackend,
} from '../backends/types.js';
import type { MacsConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { EventSink } from '../events/log.js';
import type { EventInput } from '../events/types.js';
import type { Logger } from '../log/logger.js';
import { checkDuplicate, pruneDedup, recordSeen } from '../protocol/dedup.js';
import { hashBody, makeRequestId } from '../protocol/ids.js';
import {
  createBridgeParser,
  type BridgeEvent,
  type BridgeParser,
} from '../protocol/request-parser.js';
import { splitResponse } from '../protocol/response.js';
import { ensureHomeDirs, ensurePrivateDir, FILE_MODE } from '../state/fs.js';
import { paneLogPath, type HomePaths } from '../state/paths.js';
import { createSerialQueue } from '../state/serial.js';
import {
  acquireAgentLock,
  loadAgentState,
  saveAgentState,
} from '../state/store.js';
import type {
  AgentStateFile,
  AgentStateName,
  Priority,
  RequestRecord,
  StateSource,
} from '../state/types.js';
import { isOpenStage } from '../state/types.js';
import { quoteShellArg } from '../tmux/args.js';
import type { TmuxClient } from '../tmux/client.js';
import { PaneNotFoundError } from '../tmux/client.js';
import { archiveRequest, removeRequestFiles } from './archive.js';
import type { Deliverer, DeliveryRules } from './deliver.js';
import { createLogTail, type LogTail, type TailEvent } from './tail.js';

/** What the supervisor needs to know about the agent's kind (from its preset). */
export interface AgentProfile {
  preset: string;
  rules: DeliveryRules;
  /** Classify a captured screen (capture-pane text). */
  classify: (screen: string) => AgentStateName;
}

export interface SupervisorOptions {
  agent: string;
  pane: string;
  profile: AgentProfile;
  paths: HomePaths;
  config: MacsConfig;
  tmux: TmuxClient;
  events: EventSink;
  log: Logger;
  deliverer: Deliverer;
  /** Routes a request to its answerer. */
  backend: ControllerBackend;
}

export interface Supervisor {
  readonly agent: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Hand an answer to this agent's request (backends call this). */
  onAnswer: (answer: BackendAnswer) => Promise<AnswerVerdict>;
  /** The in-memory state (tests, status). */
  snapshot(): AgentStateFile;
}

/** How long offset-only changes may wait before the state file is written. */
const LAZY_SAVE_MS = 200;
const RECENT_MAX = 20;
const PRIORITIES: readonly Priority[] = ['low', 'normal', 'high'];

/**
 * One agent's supervision: pane log → parser → ledger → backend, and answers
 * → delivery → archive. Every step leaves an event and every stage is saved
 * before the next begins, so a killed bridge resumes where it stopped.
 */
export function createSupervisor(options: SupervisorOptions): Supervisor {
  const {
    agent,
    pane,
    profile,
    paths,
    config,
    tmux,
    events,
    log,
    deliverer,
    backend,
  } = options;
  const logFile = paneLogPath(paths, agent);
  const serial = createSerialQueue();
  const abort = new AbortController();
  let state: AgentStateFile | undefined;
  let parser: BridgeParser = newParser();
  let tail: LogTail | undefined;
  let releaseLock: (() => Promise<void>) | undefined;
  let lazyTimer: NodeJS.Timeout | undefined;
  let stopped = false;
  const deliveries = new Set<Promise<void>>();

  function newParser(): BridgeParser {
    return createBridgeParser({
      maxBlockLines: config.maxBlockLines,
      maxBlockBytes: config.maxBlockBytes,
    });
  }

  function current(): AgentStateFile {
    if (!state) throw new Error(`supervisor for ${agent} is not started`);
    return state;
  }

  async function emit(input: Omit<EventInput, 'agent'>): Promise<void> {
    try {
      await events.emit({ agent, ...input });
    } catch (error) {
      log.error({ err: error, event: input.type }, 'could not record event');
    }
  }

  async function saveNow(): Promise<void> {
    if (lazyTimer) {
      clearTimeout(lazyTimer);
      lazyTimer = undefined;
    }
    await saveAgentState(paths, current());
  }

  function saveLater(): void {
    if (lazyTimer || stopped) return;
    lazyTimer = setTimeout(() => {
      lazyTimer = undefined;
      void serial(() => saveAgentState(paths, current())).catch(
        (error: unknown) => log.error({ err: error }, 'state save failed'),
      );
    }, LAZY_SAVE_MS);
    lazyTimer.unref();
  }

  async function setAgentState(
    next: AgentStateName,
    source: StateSource,
  ): Promise<void> {
    const s = current();
    if (s.state === next) return;
    const previous = s.state;
    s.state = next;
    s.stateSource = source;
    s.stateSince = new Date().toISOString();
    saveLater();
    await emit({
      type: 'state.changed',
      data: { from: previous, to: next, source },
    });
  }

  /** Read the pane's screen and classify it; a missing or exited pane is `dead`. */
  async function readState(): Promise<AgentStateName> {
    try {
      const info = await tmux.paneInfo(pane);
      if (info.dead) {
        await serial(() => setAgentState('dead', 'pane'));
        return 'dead';
      }
      const screen = await tmux.capturePane(pane);
      const next = profile.classify(screen);
      await serial(() => setAgentState(next, 'screen'));
      return next;
    } catch (error) {
      if (error instanceof PaneNotFoundError) {
        await serial(() => setAgentState('dead', 'pane'));
        return 'dead';
      }
      throw error;
    }
  }

  // ---- capture -----------------------------------------------------------

  /**
   * Pipe the pane into its log. `pipe-pane -o` would toggle an existing pipe
   * off, so the pane's `#{pane_pipe}` and our `@macs_pipe` tag are checked
   * first: a pipe we opened before (a restarted bridge) is kept, so output
   * printed while the bridge was down is in the log; any other pipe is
   * replaced (a plain `pipe-pane CMD` closes the old one and opens ours in
   * one server step, so nothing is lost in between).
   */
  async function ensureCapture(): Promise<boolean> {
    await ensurePrivateDir(paths.panes);
    const handle = await open(logFile, 'a', FILE_MODE);
    await handle.close();
    const info = await tmux.paneInfo(pane);
    if (info.piped && info.pipeTag === logFile) return false;
    await tmux.pipePane(pane, `exec cat >> ${quoteShellArg(logFile)}`);
    await tmux.setPaneOption(pane, '@macs_pipe', logFile);
    await emit({
      type: 'capture.started',
      data: { pane, log: logFile, replacedPipe: info.piped },
    });
    return true;
  }

  /**
   * A pipe only sees output printed after it opens. When the bridge starts
   * watching a pane for the first time, what the pane already shows (its
   * history, as tmux renders it, wrapped lines joined) is scanned once, so a
   * worker that asked before the bridge came up is still heard. The pipe is
   * opened first, so nothing falls between; a request seen both ways is a
   * duplicate and dropped.
   */
  async function scanExistingScreen(): Promise<void> {
    const history = await tmux.capturePane(pane, { start: '-', join: true });
    const once = newParser();
    const found = [
      ...once.push(history.endsWith('\n') ? history : `${history}\n`),
      ...once.flush(),
    ];
    for (const item of found) await handleParsed(item);
  }

  // ---- detection ---------------------------------------------------------

  async function onTail(event: TailEvent): Promise<void> {
    await serial(async () => {
      const s = current();
      switch (event.type) {
        case 'data': {
          const found = parser.push(event.text);
          let changed = false;
          for (const item of found)
            changed = (await handleParsed(item)) || changed;
          const held = Buffer.byteLength(parser.retained(), 'utf8');
          s.logOffset = Math.max(0, event.end - held);
          if (changed) await saveNow();
          else saveLater();
          return;
        }
        case 'truncated':
        case 'replaced': {
          parser = newParser();
          s.logOffset = 0;
          s.logInode = await stat(logFile)
            .then((i) => i.ino)
            .catch(() => undefined);
          await saveNow();
          await emit({
            type:
              event.type === 'truncated'
                ? 'capture.truncated'
                : 'capture.replaced',
            data:
              event.type === 'truncated'
                ? { previousOffset: event.previousOffset, size: event.size }
                : {},
          });
          return;
        }
        case 'error':
          await emit({
            type: 'error',
            data: { where: 'tail', message: event.error.message },
          });
          return;
        default: {
          const never: never = event;
          throw new Error(`unexpected tail event ${JSON.stringify(never)}`);
        }
      }
    });
  }

  /** Returns true when the state changed in a way that must be saved now. */
  async function handleParsed(item: BridgeEvent): Promise<boolean> {
    const s = current();
    switch (item.type) {
      case 'attribute-dropped':
        await emit({
          type: 'request.attribute-dropped',
          data: {
            key: item.key.slice(0, 64),
            value: item.value.slice(0, 80),
            reason: item.reason,
          },
        });
        return false;
      case 'malformed':
        s.counters.malformed += 1;
        await emit({
          type: 'request.malformed',
          data: {
            reason: item.reason,
            lines: item.lines,
            bytes: item.bytes,
            firstLine: item.firstLine.slice(0, 200),
          },
        });
        return true;
      case 'request':
        return handleRequest(item.attributes, item.body);
      default: {
        const never: never = item;
        throw new Error(`unexpected parser event ${JSON.stringify(never)}`);
      }
    }
  }

  async function handleRequest(
    attributes: Record<string, string>,
    body: string,
  ): Promise<boolean> {
    const s = current();
    const now = new Date();
    const bodyHash = hashBody(body);
    const workerId = attributes.id;
    const pendingHashes = new Set(
      Object.values(s.requests)
        .filter((r) => isOpenStage(r.stage))
        .map((r) => r.bodyHash),
    );
    s.dedup = pruneDedup(s.dedup, now, config.dedupWindowSec);
    const verdict = checkDuplicate(s.dedup, {
      ...(workerId ? { workerId } : {}),
      bodyHash,
      now,
      windowSec: config.dedupWindowSec,
      pendingHashes,
    });
    const id = makeRequestId({
      agent,
      ...(workerId ? { workerId } : {}),
      body,
      now,
    });
    if (verdict.duplicate || s.requests[id]) {
      s.counters.duplicates += 1;
      await emit({
        type: 'request.duplicate',
        requestId: id,
        data: {
          reason: verdict.duplicate ? verdict.reason : 'id',
          ...(workerId ? { workerId } : {}),
        },
      });
      return true;
    }
    const priority =
      PRIORITIES.find((p) => p === attributes.priority) ?? 'normal';
    const record: RequestRecord = {
      id,
      agent,
      ...(workerId ? { workerId } : {}),
      type: attributes.type ?? 'question',
      priority,
      attributes,
      bodyHash,
      body,
      stage: 'detected',
      detectedAt: now.toISOString(),
    };
    s.requests[id] = record;
    s.dedup = recordSeen(s.dedup, {
      ...(workerId ? { workerId } : {}),
      bodyHash,
      now,
    });
    s.counters.detected += 1;
    await saveNow();
    await emit({
      type: 'request.detected',
      requestId: id,
      data: {
        type: record.type,
        priority,
        attributes,
        chars: body.length,
        hash: bodyHash.slice(0, 12),
      },
    });
    log.info({ agent, requestId: id, chars: body.length }, 'request detected');
    await route(record);
    return true;
  }

  async function route(record: RequestRecord): Promise<void> {
    try {
      await backend.submit({
        id: record.id,
        agent,
        ...(record.workerId ? { workerId: record.workerId } : {}),
        type: record.type,
        priority: record.priority,
        attributes: record.attributes,
        body: record.body,
        bodyHash: record.bodyHash,
        detectedAt: record.detectedAt,
        preset: profile.preset,
      });
    } catch (error) {
      await emit({
        type: 'error',
        requestId: record.id,
        data: {
          where: 'route',
          backend: backend.name,
          message: errorMessage(error),
        },
      });
      return;
    }
    if (record.stage === 'detected') {
      record.stage = 'routed';
      record.routedAt = new Date().toISOString();
      record.backend = backend.name;
      // Not urgent: a restart that finds the request still `detected` routes
      // it again, which is idempotent.
      saveLater();
    }
    await emit({
      type: 'request.routed',
      requestId: record.id,
      data: { backend: backend.name },
    });
  }

  // ---- answers and delivery ---------------------------------------------

  async function onAnswer(answer: BackendAnswer): Promise<AnswerVerdict> {
    return serial(async () => {
      const s = current();
      const record = s.requests[answer.id];
      if (!record) {
        if (s.recent.some((r) => r.id === answer.id)) {
          // A leftover answer file of a request already archived (a crash between the
          // archive and the clean-up): finish the clean-up.
          await removeRequestFiles(paths, answer.id);
          return 'already-answered';
        }
        return 'unknown-request';
      }
      if (record.stage !== 'routed' && record.stage !== 'detected')
        return 'already-answered';
      const parsed = splitResponse(answer.text, { noSplit: config.noSplit });
      const now = new Date().toISOString();
      record.response = {
        instructions: parsed.instructions,
        notes: parsed.notes,
        source: answer.source,
        receivedAt: now,
        raw: answer.text,
      };
      record.answeredAt = now;
      record.stage = parsed.instructions.trim() ? 'answered' : 'answered-empty';
      await saveNow();
      await emit({
        type:
          record.stage === 'answered'
            ? 'request.answered'
            : 'request.answered-empty',
        requestId: record.id,
        data: {
          source: answer.source,
          chars: parsed.instructions.length,
          notesChars: parsed.notes.length,
          ...(parsed.notes ? { notes: parsed.notes.slice(0, 2000) } : {}),
        },
      });
      if (record.stage === 'answered') scheduleDelivery(record);
      else await finish(record);
      return 'accepted';
    });
  }

  function scheduleDelivery(record: RequestRecord): void {
    const task = deliver(record).catch(async (error: unknown) => {
      log.error({ err: error, requestId: record.id }, 'delivery failed');
      await emit({
        type: 'error',
        requestId: record.id,
        data: { where: 'deliver', message: errorMessage(error) },
      });
    });
    deliveries.add(task);
    void task.finally(() => deliveries.delete(task));
  }

  async function deliver(record: RequestRecord): Promise<void> {
    const text = record.response?.instructions ?? '';
    const result = await deliverer.deliver({
      pane,
      text,
      rules: profile.rules,
      readState,
      isPaused: () => current().paused,
      deliverTimeoutMs: config.deliverTimeoutSec * 1000,
      signal: abort.signal,
      onWaitingTooLong: (agentState, waitedMs) =>
        emit({
          type: 'delivery.timeout',
          requestId: record.id,
          data: { state: agentState, waitedMs },
        }),
      beforeType: () =>
        serial(async () => {
          record.stage = 'delivering';
          record.deliveringAt = new Date().toISOString();
          await saveNow();
        }),
    });
    switch (result.type) {
      case 'delivered':
        await serial(async () => {
          record.stage = 'delivered';
          record.deliveredAt = new Date().toISOString();
          current().counters.delivered += 1;
          await saveNow();
          await emit({
            type: 'request.delivered',
            requestId: record.id,
            data: {
              method: result.method,
              chars: result.chars,
              waitedMs: result.waitedMs,
            },
          });
          await finish(record);
        });
        return;
      case 'empty':
        await serial(async () => {
          record.stage = 'answered-empty';
          await saveNow();
          await emit({
            type: 'request.answered-empty',
            requestId: record.id,
            data: { reason: 'nothing left after sanitizing' },
          });
          await finish(record);
        });
        return;
      case 'pane-gone':
        await emit({
          type: 'error',
          requestId: record.id,
          data: {
            where: 'deliver',
            message: `pane ${pane} is gone; the answer is kept and will be delivered by a bridge on a live pane`,
          },
        });
        return;
      case 'aborted':
        return;
      default: {
        const never: never = result;
        throw new Error(`unexpected delivery result ${JSON.stringify(never)}`);
      }
    }
  }

  /** Archive a finished request and drop it from the open set. Runs under `serial`. */
  async function finish(record: RequestRecord): Promise<void> {
    const s = current();
    await archiveRequest(paths, record);
    delete s.requests[record.id];
    s.recent = [
      {
        id: record.id,
        type: record.type,
        stage: record.stage,
        detectedAt: record.detectedAt,
        ...(record.deliveredAt ? { deliveredAt: record.deliveredAt } : {}),
        firstLine: record.body.split('\n', 1)[0]?.slice(0, 120) ?? '',
        ...(record.response
          ? { instructions: record.response.instructions.slice(0, 500) }
          : {}),
      },
      ...s.recent.filter((r) => r.id !== record.id),
    ].slice(0, RECENT_MAX);
    await saveNow();
    await removeRequestFiles(paths, record.id);
    await emit({
      type: 'request.archived',
      requestId: record.id,
      data: { stage: record.stage },
    });
  }

  /** After a restart: carry every open request on from the stage it was saved in. */
  async function resumeRequests(): Promise<void> {
    const s = current();
    const open = Object.values(s.requests).sort((a, b) =>
      a.detectedAt.localeCompare(b.detectedAt),
    );
    for (const record of open) {
      switch (record.stage) {
        case 'detected':
        case 'routed':
          // Re-submitting is idempotent for the file backend and restores missing inbox files.
          await route(record);
          break;
        case 'answered':
          scheduleDelivery(record);
          break;
        case 'delivering':
          // At most once: the bridge died while typing; re-sending could submit twice.
          record.stage = 'unconfirmed';
          await saveNow();
          await emit({
            type: 'delivery.unconfirmed',
            requestId: record.id,
            data: {
              reason:
                'the bridge stopped while typing this answer; not re-sent (delivery is at most once)',
            },
          });
          await finish(record);
          break;
        case 'answered-empty':
        case 'delivered':
        case 'confirmed':
        case 'unconfirmed':
          await finish(record);
          break;
        default: {
          const never: never = record.stage;
          throw new Error(`unexpected stage ${String(never)}`);
        }
      }
    }
    for (const recent of s.recent) await removeRequestFiles(paths, recent.id);
  }

  return {
    agent,
    snapshot: () => structuredClone(current()),
    onAnswer,
    async start() {
      await ensureHomeDirs(paths);
      releaseLock = await acquireAgentLock(paths, agent);
      try {
        const loaded = await loadAgentState(paths, agent, profile.preset);
        state = loaded.state;
        state.pane = pane;
        state.preset = profile.preset;
        if (loaded.type === 'corrupt') {
          await emit({
            type: 'warning',
            data: {
              message: `state file was unreadable (${loaded.error}); moved to ${loaded.movedTo}, starting fresh`,
            },
          });
        }
        const newPipe = await ensureCapture();
        const inode = await stat(logFile).then((i) => i.ino);
        if (state.logInode !== undefined && state.logInode !== inode)
          state.logOffset = 0;
        state.logInode = inode;
        await serial(async () => {
          await saveNow();
          await emit({
            type:
              loaded.type === 'loaded' ? 'bridge.resumed' : 'bridge.started',
            data: {
              pane,
              preset: profile.preset,
              offset: current().logOffset,
              open: Object.keys(current().requests).length,
            },
          });
          await resumeRequests();
          if (newPipe || loaded.type !== 'loaded') await scanExistingScreen();
        });
        tail = createLogTail({
          file: logFile,
          offset: state.logOffset,
          onEvent: onTail,
          pollIntervalMs: config.pollIntervalMs,
        });
        await tail.start();
        void readState().catch(() => undefined);
      } catch (error) {
        await releaseLock();
        releaseLock = undefined;
        throw error;
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      abort.abort();
      await tail?.stop();
      await Promise.allSettled([...deliveries]);
      if (state) {
        await serial(() => saveNow());
        await emit({
          type: 'bridge.stopped',
          data: { offset: current().logOffset },
        });
      }
      await releaseLock?.();
    },
  };
}
