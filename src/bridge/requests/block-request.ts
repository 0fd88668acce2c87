/**
 * From a detected block to a routed request: duplicates dropped (by the
 * worker's id or the body's hash), a flooding worker held to the config's
 * `limits`, the id claimed unique across agents, the record written with
 * who asked (pane, program, session), then the request handed to its
 * answerer (the backend). Heuristic triggers on an idle screen come here
 * too. Every function runs under the context's `serial`.
 */
import { createLastAsked, type LastAsked } from './last-asked.js';
import type {
  BackendAnswer,
  ControllerBackend,
  SubmitResult,
} from '../../backends/types.js';
import { errorMessage } from '../../errors.js';
import {
  checkDuplicate,
  pruneDedup,
  recordSeen,
  type DedupVerdict,
} from '../../protocol/dedup.js';
import { hashBody, makeRequestId } from '../../protocol/ids.js';
import { detectedRecord } from '../../state/ledger.js';
import { takeStep, type StepHost } from '../../state/take-step.js';
import { claimRequestId } from '../../state/request-ids.js';
import {
  isOpenStage,
  type AgentStateFile,
  type Priority,
  type RequestRecord,
} from '../../state/types.js';
import type { AgentContext } from '../agent-context.js';
import { appealDetails } from './appeal.js';
import { readAsker } from './asker.js';
import { raiseRequest } from './raise.js';
import type { RequestSteps } from './request-steps.js';

const PRIORITIES: readonly Priority[] = ['low', 'normal', 'high'];

type DedupReason = Extract<DedupVerdict, { duplicate: true }>['reason'];

/** Which limit one more request would break, and by how much. */
/** A request block found on the screen (by intake/), as this room takes it. */
export interface DetectedBlock {
  attributes: Record<string, string>;
  body: string;
  /** Part of the body was hidden on the screen (concealed, or invisible). */
  concealed: boolean;
  /**
   * Another copy of a block read before was printed (the reader's
   * `request-again`, not a redraw): which copy.
   */
  again?: number;
}

export interface LimitTrip {
  reason: 'pending-requests' | 'requests-per-minute' | 'pending-bytes';
  count: number;
  limit: number;
}

/**
 * Pure: which per-agent limit (config `limits`) one more request of `body`
 * would break: open requests, requests in the last minute (`recent`, the
 * times of the last detections), bytes of open bodies.
 */
export function overLimit(
  limits: {
    maxPendingRequests: number;
    maxRequestsPerMinute: number;
    maxPendingBytes: number;
  },
  open: readonly RequestRecord[],
  recentCount: number,
  body: string,
): LimitTrip | undefined {
  if (open.length >= limits.maxPendingRequests)
    return {
      reason: 'pending-requests',
      count: open.length + 1,
      limit: limits.maxPendingRequests,
    };
  if (recentCount >= limits.maxRequestsPerMinute)
    return {
      reason: 'requests-per-minute',
      count: recentCount + 1,
      limit: limits.maxRequestsPerMinute,
    };
  const bytes = open.reduce(
    (n, r) => n + Buffer.byteLength(r.body),
    Buffer.byteLength(body),
  );
  if (bytes > limits.maxPendingBytes)
    return {
      reason: 'pending-bytes',
      count: bytes,
      limit: limits.maxPendingBytes,
    };
  return undefined;
}

/**
 * Pure: what a duplicate repeats. An open request's answer will still come;
 * a finished one's never will (issue 25: a worker asking again under an id
 * already answered, dismissed or expired waits for ever), so the event says
 * `unanswered`, which request it repeats and what to do, and a person is
 * called (bridge/route/attention.ts).
 */
export function describeRepeated(
  state: Pick<AgentStateFile, 'requests' | 'recent'>,
  input: {
    agent: string;
    candidate: string;
    reason: DedupReason;
    body: string;
    workerId: string | undefined;
  },
):
  | { unanswered: true; earlier?: string; stage?: string; message: string }
  | Record<string, never> {
  const { agent, candidate, reason, body, workerId } = input;
  if (reason === 'pending') return {};
  const open = Object.values(state.requests).find(
    (r) =>
      isOpenStage(r.stage) &&
      (r.id === candidate ||
        (workerId !== undefined && r.workerId === workerId)),
  );
  if (open) return {};
  const firstLine = body.split('\n', 1)[0]?.slice(0, 120) ?? '';
  const earlier = state.recent.find((r) =>
    reason === 'id'
      ? r.id === candidate || r.id.startsWith(`${candidate}.`)
      : r.firstLine === firstLine,
  );
  const what =
    reason === 'id' && workerId !== undefined
      ? `under id ${workerId}, already used by a finished request`
      : 'the same question as a finished request';
  const finished = earlier ? ` (${earlier.id}, ${earlier.stage})` : '';
  return {
    unanswered: true,
    ...(earlier ? { earlier: earlier.id, stage: earlier.stage } : {}),
    message: `${agent} asked again ${what}${finished}: it is not raised, so ${agent} gets no answer; tell it with macs send ${agent} "…"`,
  };
}

/**
 * What routing a request gave back: an answer the answerer gave at once
 * (SubmitResult.answered: an echo of the first message's example), for its
 * caller to hand to the answers room, whose queue takes it after this task.
 */
export interface Routed {
  answered?: BackendAnswer;
}

/** A block taken: `save`, the state must be saved now; routed if raised. */
export interface BlockTaken extends Routed {
  save: boolean;
}

export interface Requests {
  /** A block found on the screen: raised as a request and routed, or not. */
  onBlock: (block: DetectedBlock) => Promise<BlockTaken>;
  /**
   * Hand a request to its answerer. `fresh`: it was detected just now (not
   * routed again after a restart), so an answer already waiting for its id
   * was planted before anyone saw the question.
   */
  route: (
    record: RequestRecord,
    options?: { fresh?: boolean },
  ) => Promise<Routed>;
  /** The last block the program now in the pane printed (last-asked.ts). */
  lastAsked: () => LastAsked | undefined;
}

export function createRequests(
  ctx: AgentContext,
  deps: {
    steps: RequestSteps;
    backend: ControllerBackend;
  },
): Requests {
  const { agent, pane, paths, config, tmux, log, profile } = ctx;
  const { steps, backend } = deps;
  /** When the last requests were detected (the per-minute limit). */
  const detections: number[] = [];
  const asked = createLastAsked(ctx);
  /** Requests are being refused by a limit (one `request.limited` a burst). */
  let limitedBurst = false;

  async function onBlock(block: DetectedBlock): Promise<BlockTaken> {
    asked.note(block);
    const { attributes, body } = block;
    const s = ctx.current();
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
    const candidate = makeRequestId({
      agent,
      ...(workerId ? { workerId } : {}),
      body,
      now,
    });
    if (verdict.duplicate || s.requests[candidate]) {
      s.counters.duplicates += 1;
      const reason = verdict.duplicate ? verdict.reason : 'id';
      const repeated = describeRepeated(s, {
        agent,
        candidate,
        reason,
        body,
        workerId,
      });
      await ctx.emit({
        type: 'request.duplicate',
        requestId: candidate,
        data: {
          reason,
          ...(workerId ? { workerId } : {}),
          ...(block.again === undefined ? {} : { printedAgain: block.again }),
          ...repeated,
          ...('unanswered' in repeated ? { pane } : {}),
        },
      });
      return { save: true };
    }
    // Who asks: the program the pane runs now. A program respawned since the
    // last look asks this (its first words), so the one before is ended first.
    const info = await tmux.paneInfo(pane).catch(() => undefined);
    if (
      info &&
      !info.dead &&
      ctx.panePid !== undefined &&
      info.pid !== ctx.panePid
    )
      await steps.onProgramRestarted(info.pid);
    // A flooding worker: over a limit, the request is recorded, not raised.
    const nowMs = now.getTime();
    while (detections.length > 0 && (detections[0] ?? 0) < nowMs - 60_000)
      detections.shift();
    const open = Object.values(ctx.current().requests).filter((r) =>
      isOpenStage(r.stage),
    );
    const over = overLimit(config.limits, open, detections.length, body);
    if (over) {
      // Dropped, not remembered: cheap whatever the flood's size (asked again
      // later, under the limit, it is a request like any other).
      if (limitedBurst) return { save: false };
      limitedBurst = true;
      await ctx.emit({
        type: 'request.limited',
        requestId: candidate,
        data: {
          ...over,
          firstLine: body.split('\n', 1)[0]?.slice(0, 120) ?? '',
          message: `${agent} asks too much at once (${over.reason}: ${String(over.count)} over the limit of ${String(over.limit)}); this request and the next ones over the limit are recorded, not raised`,
        },
      });
      return { save: false };
    }
    limitedBurst = false;
    detections.push(nowMs);
    const asker = info && !info.dead ? await readAsker(info) : undefined;
    // Unique across agents: another agent's `w-1-r` is not ours.
    const id = await claimRequestId(paths, agent, candidate);
    const priority =
      PRIORITIES.find((p) => p === attributes.priority) ?? 'normal';
    // An appeal carries the denied call and the recent transcript (appeal.ts).
    const appeal =
      attributes.type === 'appeal'
        ? await appealDetails(paths, agent, attributes.call)
        : undefined;
    const record = detectedRecord({
      id,
      agent,
      ...(workerId ? { workerId } : {}),
      type: attributes.type ?? 'question',
      priority,
      attributes: appeal ? { ...attributes, ...appeal.attributes } : attributes,
      bodyHash,
      body: appeal ? `${body}\n\n${appeal.section}` : body,
      detectedAt: now.toISOString(),
      pane,
      ...(ctx.panePid !== undefined ? { panePid: ctx.panePid } : {}),
      ...(ctx.session ? { session: ctx.session } : {}),
      ...(asker ? { asker } : {}),
      ...(block.concealed ? { concealed: true as const } : {}),
    });
    await raiseRequest(
      ctx,
      record,
      {
        type: record.type,
        priority,
        attributes,
        chars: body.length,
        hash: bodyHash.slice(0, 12),
        // For a state rebuilt from events (state/rebuild.ts): the dedup key,
        // and a pane-log offset that is before this request's block.
        bodyHash,
        logOffset: s.logOffset,
        ...(asker ? { asker } : {}),
      },
      (state) => {
        state.dedup = recordSeen(state.dedup, {
          ...(workerId ? { workerId } : {}),
          bodyHash,
          now,
        });
      },
    );
    log.info({ agent, requestId: id, chars: body.length }, 'request detected');
    return { save: true, ...(await route(record, { fresh: true })) };
  }

  async function route(
    record: RequestRecord,
    { fresh = false }: { fresh?: boolean } = {},
  ): Promise<Routed> {
    let routed: SubmitResult | void;
    try {
      routed = await backend.submit({
        id: record.id,
        agent,
        ...(record.workerId ? { workerId: record.workerId } : {}),
        type: record.type,
        priority: record.priority,
        attributes: record.attributes,
        body: record.body,
        ...(record.concealed ? { concealed: true } : {}),
        bodyHash: record.bodyHash,
        detectedAt: record.detectedAt,
        preset: profile.preset,
        // For the context packet, and for a restarted bridge to carry on.
        pane,
        recent: ctx.current().recent,
        ...(record.backend ? { previousBackend: record.backend } : {}),
        ...(fresh ? { fresh } : {}),
      });
    } catch (error) {
      await ctx.emit({
        type: 'error',
        requestId: record.id,
        data: {
          where: 'route',
          backend: backend.name,
          message: errorMessage(error),
        },
      });
      return {};
    }
    if (record.stage === 'detected') {
      // Not urgent to save: a restart that finds the request still
      // `detected` routes it again, which is idempotent.
      const later: StepHost = {
        emit: (input) => ctx.emit(input),
        saveNow: () => {
          ctx.saveLater();
          return Promise.resolve();
        },
      };
      await takeStep(later, record, {
        type: 'routed',
        at: new Date().toISOString(),
        backend: routed?.backend ?? backend.name,
      });
    }
    if (!routed?.recorded)
      await ctx.emit({
        type: 'request.routed',
        requestId: record.id,
        data: { backend: backend.name },
      });
    return routed?.answered ? { answered: routed.answered } : {};
  }

  return {
    onBlock,
    route,
    lastAsked: asked.get,
  };
}
