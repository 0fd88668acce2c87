import path from 'node:path';
import type { CollectContext } from '../../backends/context-collector.js';
import { createRunGit, type RunGit } from '../../backends/git.js';
import { createSerialQueue } from '../../state/serial.js';
import type { FileBackend } from '../../backends/file.js';
import { createPriorityQueue } from '../../backends/queue.js';
import type {
  AnswerHandler,
  AnswerVerdict,
  AttemptBackend,
  AttemptResult,
  BackendRequest,
  ControllerBackend,
  SubmitResult,
} from '../../backends/types.js';
import type { BackendName, MacsConfig } from '../../config/schema.js';
import { errorMessage } from '../../errors.js';
import { createRequestEmitter, type EventSink } from '../../events/log.js';
import type { Logger } from '../../log/logger.js';
import { fileExists } from '../../home/fs.js';
import type { HomePaths } from '../../home/paths.js';
import { createAttention, type Attention } from './attention.js';
import { contextFor } from './context-archive.js';
import {
  createGuardHistories,
  noteAnswer,
  noteRequest,
  pruneHistory,
} from './guard-history.js';
import { personCall } from './person-call.js';
import {
  isNonInteractive,
  NON_INTERACTIVE_SOURCE,
  unattendedOutcome,
} from './unattended.js';
import { checkGuards, chooseRoute, type GuardTrip } from './router.js';

export interface DispatcherOptions {
  config: MacsConfig;
  paths: HomePaths;
  events: EventSink;
  log: Logger;
  file: FileBackend;
  exec?: AttemptBackend;
  interactive?: AttemptBackend;
  collectContext: CollectContext;
  now?: () => number;
  /**
   * When the bridge's session began (epoch ms): the loop guards never count
   * an earlier session's requests (guard-history.ts).
   */
  sessionSince?: number;
  /** Calls a person when a request lands in the inbox (default: an event only). */
  attention?: Attention;
  /** Runs git for an unattended worker's merge (default: the real git). */
  runGit?: RunGit;
}

/** The one backend a supervisor talks to: routing, fallback, loop guards. */
export interface Dispatcher extends ControllerBackend {
  /** Send answers to this agent's requests to its handler. */
  register(agent: string, onAnswer: AnswerHandler): void;
  start(): Promise<void>;
  /** The backends this bridge can use. */
  readonly available: readonly BackendName[];
}

/** Where an unattended worker's request is routed (docs/unattended.md). */
const NON_INTERACTIVE = 'non-interactive';

/** Context packets built at once (each runs tmux twice and git once). */
export const CONTEXT_MAX_PARALLEL = 4;

/**
 * The composite backend (SPEC §3 routing). For each request it picks the
 * chain of backends (`router.ts`), applies the loop guards
 * (`bridge/guard-history.ts` remembers what they need), builds the context
 * packet once (`bridge/context-archive.ts`: archived with the request),
 * and tries the backends in order: an exec or interactive failure is
 * recorded (`request.failed`) and the request moves on
 * (`request.fallback`, `request.routed`), ending with the file inbox.
 * `submit` only decides and records the route; building the packet and
 * handing the request over happen in the background, so neither tmux, git
 * nor a slow answerer ever holds up the supervisor.
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { config, paths, events, log, file } = options;
  const now = options.now ?? Date.now;
  const attempts = new Map<BackendName, AttemptBackend>();
  if (options.exec) attempts.set('exec', options.exec);
  if (options.interactive) attempts.set('interactive', options.interactive);
  const available: BackendName[] = ['file', ...attempts.keys()];
  const handlers = new Map<string, AnswerHandler>();
  const histories = createGuardHistories({
    paths,
    log,
    now,
    ...(options.sessionSince !== undefined
      ? { since: options.sessionSince }
      : {}),
  });
  /** Requests written to the inbox before their context packet was ready. */
  const inboxFirst = new Set<string>();
  const tasks = new Set<Promise<void>>();
  const warnedSkips = new Set<string>();
  const preparing = createPriorityQueue(CONTEXT_MAX_PARALLEL);
  const attention =
    options.attention ??
    createAttention({ paths, config: config.attention, events, log });
  /** Why a loop guard sent a request to a person, until the person is called. */
  const guarded = new Map<string, GuardTrip>();
  const contextOptions = {
    paths,
    contextLines: config.contextLines,
    log,
    collectContext: options.collectContext,
    now,
  };
  let stopped = false;

  const emit = createRequestEmitter(events, log);
  const runGit = options.runGit ?? createRunGit();
  const oneAtATime = createSerialQueue();

  function wrapHandler(agent: string, onAnswer: AnswerHandler): AnswerHandler {
    return async (answer) => {
      const verdict = await onAnswer(answer);
      if (verdict === 'accepted')
        noteAnswer(await histories.of(agent), answer.id, now());
      return verdict;
    };
  }

  /**
   * The request is in the inbox now: call a person (once per request). A
   * loop guard's reason, or the answerer it fell back from, says why.
   */
  async function toPerson(
    request: BackendRequest,
    from?: BackendName,
  ): Promise<void> {
    await file.submit(request);
    const guard = guarded.get(request.id);
    guarded.delete(request.id);
    await attention.request(personCall(request, guard, from));
  }

  async function deliverAnswer(
    request: BackendRequest,
    backend: BackendName | typeof NON_INTERACTIVE,
    result: Extract<AttemptResult, { type: 'answered' }>,
  ): Promise<void> {
    const handler = handlers.get(request.agent);
    let verdict: AnswerVerdict = 'unknown-request';
    if (handler)
      verdict = await handler({
        id: request.id,
        text: result.text,
        source: result.source,
      });
    if (verdict !== 'accepted') {
      await emit(request, 'warning', {
        message: `the answer from ${backend} was not taken (${verdict})`,
      });
    }
  }

  /**
   * An unattended worker's request (unattended.ts): answered at once, as
   * decided by the rule `non-interactive`, or (a merge that does not go
   * cleanly) reported and handed to a person.
   */
  async function answerUnattended(request: BackendRequest): Promise<void> {
    // One at a time: two workers done at once must not merge into the same
    // branch together (the second is checked against the first's merge).
    const outcome = await oneAtATime(() =>
      unattendedOutcome(request, { config, paths, runGit }),
    );
    if (outcome.type === 'answer') {
      if (outcome.data) await emit(request, 'merge.done', outcome.data);
      await deliverAnswer(request, NON_INTERACTIVE, {
        type: 'answered',
        text: outcome.text,
        source: NON_INTERACTIVE_SOURCE,
      });
      return;
    }
    await emit(request, 'merge.conflict', {
      ...outcome.data,
      message: outcome.message,
    });
    await emit(request, 'request.routed', {
      backend: 'file',
      from: NON_INTERACTIVE,
      reason: outcome.data.reason,
    });
    await file.submit(request);
    await attention.request({
      agent: request.agent,
      requestId: request.id,
      reason: String(outcome.data.reason),
      message: outcome.message,
      ...(request.pane ? { pane: request.pane } : {}),
      data: outcome.data,
    });
  }

  /** Try the chain from `index` on; runs in the background. */
  async function runChain(
    request: BackendRequest,
    chain: readonly BackendName[],
    index: number,
  ): Promise<void> {
    for (let i = index; i < chain.length; i += 1) {
      const name = chain[i] ?? 'file';
      if (name === 'file') {
        // Already in the inbox without its context (see dispatch): add the
        // context only while the request is still pending there, so an
        // answer delivered meanwhile is not brought back.
        if (i === 0 && inboxFirst.has(request.id)) {
          inboxFirst.delete(request.id);
          if (!(await fileExists(path.join(paths.inbox, `${request.id}.json`))))
            return;
        }
        await toPerson(request, i > 0 ? chain[i - 1] : undefined);
        return;
      }
      const backend = attempts.get(name);
      let result: AttemptResult;
      try {
        result = backend
          ? await backend.attempt(request)
          : { type: 'failed', reason: 'unavailable' };
      } catch (error) {
        result = {
          type: 'failed',
          reason: 'error',
          detail: { error: errorMessage(error) },
        };
      }
      if (result.type === 'aborted') return;
      if (result.type === 'answered') {
        // Even while stopping: the supervisor saves it, a restart delivers it.
        await deliverAnswer(request, name, result);
        return;
      }
      if (stopped) return; // a restarted bridge routes it again
      const next = chain[i + 1] ?? 'file';
      await emit(request, 'request.failed', {
        backend: name,
        reason: result.reason,
        ...result.detail,
      });
      await emit(request, 'request.fallback', {
        from: name,
        to: next,
        reason: result.reason,
      });
      await emit(request, 'request.routed', {
        backend: next,
        from: name,
        fallback: true,
      });
      log.info(
        { requestId: request.id, from: name, to: next, reason: result.reason },
        'falling back',
      );
    }
  }

  function track(task: Promise<void>, request: BackendRequest): void {
    const guarded = task.catch(async (error: unknown) => {
      log.error({ err: error, requestId: request.id }, 'dispatch failed');
      await emit(request, 'error', {
        where: 'dispatch',
        message: errorMessage(error),
      });
    });
    tasks.add(guarded);
    void guarded.finally(() => tasks.delete(guarded));
  }

  async function submit(request: BackendRequest): Promise<SubmitResult> {
    const at = now();
    // Workaround detection (docs/hooks.md#appeals): a person is called; the
    // request itself goes to the controller like any other.
    if (request.type === 'repeated-denials' && !request.previousBackend)
      await attention.request({
        agent: request.agent,
        requestId: request.id,
        reason: 'repeated-denials',
        message: `${request.agent} had similar tool calls refused again and again: ${request.body.split('\n', 1)[0] ?? ''}`,
        ...(request.pane ? { pane: request.pane } : {}),
      });
    const unattended =
      isNonInteractive(config, request.agent) &&
      !(await fileExists(path.join(paths.inbox, `${request.id}.json`)));
    if (unattended) {
      await emit(request, 'request.routed', { backend: NON_INTERACTIVE });
      track(answerUnattended(request), request);
      return { backend: NON_INTERACTIVE, recorded: true };
    }
    const history = await histories.of(request.agent);
    pruneHistory(history, at);
    const resumed = request.previousBackend !== undefined;
    // An answer written before the question was asked is never taken (a
    // request routed again after a restart may have had its answer written
    // while the bridge was down: that one stands).
    if (request.fresh) await file.refuseEarly(request.id, request.agent);
    const withPerson = await fileExists(
      path.join(paths.inbox, `${request.id}.json`),
    );
    const guard =
      resumed || withPerson
        ? undefined
        : checkGuards({
            requestId: request.id,
            bodyHash: request.bodyHash,
            now: at,
            maxRequestsPerHour: config.maxRequestsPerHour,
            history,
          });
    noteRequest(history, request, at);
    const decision = withPerson
      ? { chain: ['file'] as BackendName[], skipped: [] }
      : chooseRoute({
          type: request.type,
          config,
          available,
          ...(guard ? { guard } : {}),
          ...(request.previousBackend
            ? { resumeFrom: request.previousBackend }
            : {}),
        });
    if (guard) guarded.set(request.id, guard);
    const skipKey = `${request.agent}:${decision.skipped.join(',')}`;
    if (decision.skipped.length > 0 && !warnedSkips.has(skipKey)) {
      warnedSkips.add(skipKey);
      await emit(request, 'warning', {
        message: `the config routes to ${decision.skipped.join(', ')}, which this bridge does not run; skipped`,
      });
    }
    const first = decision.chain[0] ?? 'file';
    await emit(request, 'request.routed', {
      backend: first,
      chain: decision.chain,
      ...(guard ? { guard: guard.reason } : {}),
      ...(resumed ? { resumed: true } : {}),
    });
    track(dispatch(request, decision.chain), request);
    return { backend: first, recorded: true };
  }

  /**
   * Build (or reuse) the context packet, then run the chain. A few at a
   * time: a burst of requests must not start a burst of tmux and git runs.
   */
  async function dispatch(
    request: BackendRequest,
    chain: readonly BackendName[],
  ): Promise<void> {
    // A request for a person goes into the inbox at once; the context packet
    // (a tmux capture and a git call away) is added to its metadata after.
    if (chain[0] === 'file' && !stopped) {
      await toPerson(request);
      inboxFirst.add(request.id);
    }
    const full = await preparing.run(
      request.priority,
      async () =>
        stopped
          ? undefined
          : { ...request, context: await contextFor(contextOptions, request) },
      request.agent,
    );
    if (full) await runChain(full, chain, 0);
  }

  return {
    name: config.backend,
    available,
    register(agent, onAnswer) {
      const wrapped = wrapHandler(agent, onAnswer);
      handlers.set(agent, wrapped);
      file.register(agent, wrapped);
    },
    start: () => file.start(),
    submit,
    rescan: () => file.rescan(),
    async stop() {
      stopped = true;
      await Promise.all([...attempts.values()].map((b) => b.stop()));
      await Promise.allSettled([...tasks]);
      await file.stop();
    },
  };
}
