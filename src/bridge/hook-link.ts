/**
 * The bridge's side of the hooks (docs/hooks.md). `macs hook` runs in the
 * agent's process tree and only leaves files; this module, inside the
 * supervisor, reads them:
 *
 * - `.macs/hooks/<agent>.json` (the latest hook observation): its state wins
 *   over the screen (hook-state.ts); a UserPromptSubmit after the bridge
 *   typed an answer confirms that delivery; a Stop hook's claim on an answer
 *   means the agent already has it, so the bridge does not type it.
 * - `.macs/hook-requests/<agent>/`: approvals a PreToolUse hook asks for.
 *   Each becomes a `type=approval` request routed like any other; its answer
 *   is written to `.macs/decisions/<id>.json` for the waiting hook, never
 *   typed into the agent.
 *
 * The files are watched with fs.watch, and polled every `backstopMs` in
 * case a notification is lost; the poll alone is enough.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { getPreset } from '../config/presets/index.js';
import type { MacsConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { EventInput } from '../events/types.js';
import type { Logger } from '../log/logger.js';
import {
  evaluateApprovalRules,
  ruleAnswer,
  type ApprovalRuleVerdict,
} from '../hooks/policy.js';
import {
  deciderOf,
  parseApprovalAnswer,
  type Decider,
} from '../protocol/approval.js';
import { hashBody, isSafeFileName } from '../protocol/ids.js';
import { claimRequest, pruneClaims, readClaim } from '../state/claim.js';
import { ensurePrivateDir } from '../home/fs.js';
import {
  decideOnce,
  hookRequestsDir,
  hooksDir,
  observationPath,
  parseHookRequest,
  parseObservation,
  readDecision,
  type ApprovalDecision,
  type HookObservation,
} from '../state/hook-files.js';
import type { HomePaths } from '../home/paths.js';
import { isProcessAlive } from '../state/process.js';
import {
  isTypedAnswer,
  type AgentStateFile,
  type AgentStateName,
  type HooksStatus,
  type RequestRecord,
  type StateSource,
} from '../state/types.js';
import { archiveRequest } from './archive.js';
import { arbitrateState, type ArbiterMemo } from './hook-state.js';

/** Without a hook call this long after the bridge starts, hooks count as inactive. */
export const HOOKS_START_TIMEOUT_MS = 30_000;
/** Claims of finished requests are kept this long (a slow hook must not re-claim). */
export const CLAIM_KEEP_MS = 24 * 3600 * 1000;
/** A typed answer waits this long for its UserPromptSubmit confirmation. */
const CONFIRM_WINDOW_MS = 10 * 60 * 1000;
/** After an observation, the state is read once more when the screen has caught up. */
const SETTLE_MS = 1_600;

/** What the link needs from its supervisor. */
export interface HookLinkHost {
  agent: string;
  paths: HomePaths;
  config: MacsConfig;
  /** The agent's preset name (its `hooks` says which hooks to expect). */
  preset: string;
  log: Logger;
  /** The supervisor's serial queue: every state change runs through it. */
  serial: <T>(task: () => Promise<T>) => Promise<T>;
  current: () => AgentStateFile;
  emit: (input: Omit<EventInput, 'agent'>) => Promise<void>;
  saveNow: () => Promise<void>;
  /** Archive a finished request (runs under `serial`). */
  finish: (record: RequestRecord) => Promise<void>;
  /** Route a new request to its answerer like any other (runs under `serial`). */
  route: (record: RequestRecord) => Promise<void>;
  /** Read the agent's state again (screen and hooks). */
  refreshState: () => Promise<unknown>;
}

export interface HookLink {
  start: () => Promise<void>;
  stop: () => Promise<void>;
  /** Hook > screen > activity: the state to record for a screen reading. */
  resolveState: (
    screen: AgentStateName,
    screenSource?: StateSource,
  ) => Promise<{ state: AgentStateName; source: StateSource }>;
  /** Aborted when the agent's Stop hook delivered this request (stop waiting to type). */
  signalFor: (requestId: string) => AbortSignal;
  /** Did a Stop hook already hand this answer to the agent? */
  deliveredByHook: (record: RequestRecord) => Promise<boolean>;
  /**
   * Right before typing: claim the request. False when the Stop hook claimed
   * it first; then the caller must not type (call markDeliveredByHook).
   */
  claimForTyping: (record: RequestRecord) => Promise<boolean>;
  /** Record a delivery made by the Stop hook; idempotent. Runs under `serial`. */
  markDeliveredByHook: (record: RequestRecord) => Promise<void>;
  /**
   * An answer to a hook's approval: write the decision for the waiting hook
   * and finish the request. Runs under `serial`.
   */
  decideApproval: (
    record: RequestRecord,
    given?: Decider & { decision: ApprovalDecision },
  ) => Promise<void>;
  /**
   * macs pressed the submit key into the agent: until its next hook call,
   * the agent counts as working (Claude Code runs UserPromptSubmit late).
   */
  noteSubmitted: (at?: number) => void;
  /** The latest observation (tests, status). */
  latest: () => HookObservation | undefined;
  /** Poll the hook files now. */
  check: () => Promise<void>;
}

function hooksKindOf(config: MacsConfig, preset: string): string {
  try {
    return getPreset(preset, config.presets).hooks;
  } catch {
    return 'none';
  }
}

export function inactiveReason(agent: string, waitedMs: number): string {
  return (
    `no hook call from ${agent} in the ${Math.round(waitedMs / 1000)}s since the bridge started. ` +
    `Its hooks may not be installed (macs start installs them; or run \`macs hooks install ${agent}\`), ` +
    'or Claude Code may be waiting at a prompt (trusting the folder, reviewing changed hooks in /hooks) before any hook runs. ' +
    'If the agent has just been idle, this clears with its next hook call.'
  );
}

export function createHookLink(host: HookLinkHost): HookLink {
  const { agent, paths, log } = host;
  const kind = hooksKindOf(host.config, host.preset);
  const obsFile = observationPath(paths, agent);
  const requestsDir = hookRequestsDir(paths, agent);
  let observation: HookObservation | undefined;
  let signature = '';
  let memo: ArbiterMemo = {};
  /** When macs last pressed the submit key into the agent (noteSubmitted). */
  let submittedAt: number | undefined;
  let startedAt = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let startTimer: NodeJS.Timeout | undefined;
  let settleTimer: NodeJS.Timeout | undefined;
  const watchers: FSWatcher[] = [];
  const cancels = new Map<string, AbortController>();
  const typing = new Map<string, { record: RequestRecord; at: number }>();
  const pickingUp = new Set<string>();
  let checking: Promise<void> | undefined;
  let stopped = false;

  function emitQuietly(input: Omit<EventInput, 'agent'>): void {
    void host.emit(input).catch(() => undefined);
  }

  function setHooksStatus(status: HooksStatus): void {
    host.current().hooks = status;
  }

  let refreshing: Promise<boolean> | undefined;

  /** Read the observation file if it changed; true when it did. One read at a time. */
  function refreshObservation(): Promise<boolean> {
    refreshing ??= readObservationIfChanged().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  }

  async function readObservationIfChanged(): Promise<boolean> {
    const info = await stat(obsFile).catch(() => undefined);
    const sig = info ? `${info.ino}:${info.size}:${info.mtimeMs}` : '';
    if (sig === signature) return false;
    signature = sig;
    if (!info) return false;
    const text = await readFile(obsFile, 'utf8').catch(() => '');
    const parsed = parseObservation(text);
    if (!parsed) return false;
    const fresh = observation?.ts !== parsed.ts;
    observation = parsed;
    return fresh;
  }

  async function onObservation(obs: HookObservation): Promise<void> {
    const at = Date.parse(obs.ts);
    await host.serial(async () => {
      const s = host.current();
      const before = s.hooks?.status;
      const recent = at >= startedAt - HOOKS_START_TIMEOUT_MS;
      if (recent && before !== 'active') {
        setHooksStatus({
          status: 'active',
          since: new Date().toISOString(),
          lastEvent: obs.event,
          lastEventAt: obs.ts,
        });
        await host.saveNow();
        await host.emit({
          type: 'hooks.active',
          data: { event: obs.event, ...(before ? { was: before } : {}) },
        });
      } else if (s.hooks) {
        s.hooks = { ...s.hooks, lastEvent: obs.event, lastEventAt: obs.ts };
      }
    });
    await reconcileClaims();
    await applyConfirmations();
    void host.refreshState().catch(() => undefined);
    if (settleTimer) clearTimeout(settleTimer);
    settleTimer = setTimeout(() => {
      void host.refreshState().catch(() => undefined);
    }, SETTLE_MS);
    settleTimer.unref();
  }

  /** Answers a Stop hook claimed: stop waiting to type them; they are delivered. */
  async function reconcileClaims(): Promise<void> {
    const waiting = Object.values(host.current().requests).filter(
      (r) => r.stage === 'answered' && isTypedAnswer(r),
    );
    for (const record of waiting) {
      const claim = await readClaim(paths, record.id);
      if (claim?.by !== 'hook') continue;
      cancels.get(record.id)?.abort();
      await host.serial(() => markDeliveredByHook(record));
    }
  }

  /** A prompt the agent accepted after the bridge typed an answer confirms it. */
  async function applyConfirmations(): Promise<void> {
    const promptAt = observation?.lastPromptAt
      ? Date.parse(observation.lastPromptAt)
      : Number.NaN;
    const now = Date.now();
    for (const [id, entry] of typing) {
      if (now - entry.at > CONFIRM_WINDOW_MS) {
        typing.delete(id);
        continue;
      }
      if (Number.isNaN(promptAt) || promptAt < entry.at) continue;
      const { record } = entry;
      if (record.stage === 'confirmed' || record.stage === 'unconfirmed') {
        typing.delete(id);
        continue;
      }
      // Still typing (or the submit key not yet sent): try again on the next check.
      if (record.stage !== 'delivered') continue;
      typing.delete(id);
      await host.serial(async () => {
        record.stage = 'confirmed';
        record.confirmedAt = new Date(promptAt).toISOString();
        const s = host.current();
        s.recent = s.recent.map((r) =>
          r.id === record.id ? { ...r, stage: 'confirmed' } : r,
        );
        if (!s.requests[record.id]) await archiveRequest(paths, record);
        await host.saveNow();
        await host.emit({
          type: 'request.confirmed',
          requestId: record.id,
          data: { via: 'hook', event: 'UserPromptSubmit' },
        });
      });
    }
  }

  async function pickUpRequests(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(requestsDir);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      if (!name.endsWith('.json') || name.startsWith('.')) continue;
      if (pickingUp.has(name)) continue;
      pickingUp.add(name);
      try {
        await pickUp(name);
      } catch (error) {
        log.error({ err: error, file: name }, 'hook request pickup failed');
        emitQuietly({
          type: 'error',
          data: {
            where: 'hook-request',
            file: name,
            message: errorMessage(error),
          },
        });
      } finally {
        pickingUp.delete(name);
      }
    }
  }

  async function pickUp(name: string): Promise<void> {
    const file = path.join(requestsDir, name);
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) return;
    const request = parseHookRequest(text);
    if (!request || request.agent !== agent || !isSafeFileName(request.id)) {
      await rm(file, { force: true });
      emitQuietly({
        type: 'warning',
        data: { message: `ignored a malformed hook request ${name}` },
      });
      return;
    }
    await host.serial(async () => {
      const s = host.current();
      if (s.requests[request.id] || s.recent.some((r) => r.id === request.id)) {
        await rm(file, { force: true });
        return;
      }
      const record: RequestRecord = {
        id: request.id,
        agent,
        type: 'approval',
        priority: 'high',
        attributes: {
          tool: request.tool,
          hook: request.event,
          ...(request.rule ? { rule: request.rule } : {}),
          ...(request.fingerprint ? { fingerprint: request.fingerprint } : {}),
        },
        approval: {
          source:
            request.event === 'PermissionRequest'
              ? 'PermissionRequest'
              : 'PreToolUse',
          tool: request.tool,
          subject: request.subject,
          fingerprint:
            request.fingerprint ??
            hashBody(`${request.tool}\n${request.subject}`).slice(0, 16),
          ...(request.rule ? { rule: request.rule } : {}),
          ...(request.pid ? { hookPid: request.pid } : {}),
        },
        bodyHash: hashBody(request.body),
        body: request.body,
        stage: 'detected',
        detectedAt: new Date().toISOString(),
        origin: 'hook',
      };
      s.requests[record.id] = record;
      s.counters.detected += 1;
      await host.saveNow();
      await rm(file, { force: true });
      await host.emit({
        type: 'request.detected',
        requestId: record.id,
        data: {
          type: record.type,
          priority: record.priority,
          origin: 'hook',
          hook: request.event,
          tool: request.tool,
          ...(request.rule ? { rule: request.rule } : {}),
          ...(request.fingerprint ? { fingerprint: request.fingerprint } : {}),
          chars: record.body.length,
        },
      });
      if (await decideByRule(record)) return;
      await host.route(record);
    });
  }

  /** Approvals whose hook gave up waiting: close them (the agent has moved on). */
  async function expireApprovals(): Promise<void> {
    const open = Object.values(host.current().requests).filter(
      (r) =>
        r.origin === 'hook' && (r.stage === 'detected' || r.stage === 'routed'),
    );
    for (const record of open) {
      let decision = await readDecision(paths, record.id);
      const pid = record.approval?.hookPid;
      if (!decision && pid !== undefined && !isProcessAlive(pid)) {
        // The hook that asked is gone (the agent went on, or was killed):
        // a decision now would reach nobody, so none is taken.
        decision = (
          await decideOnce(paths, {
            id: record.id,
            decision: 'deny',
            by: 'timeout',
            reason: `the hook that asked (pid ${pid}) is no longer waiting`,
            decidedAt: new Date().toISOString(),
            ...(record.approval
              ? { fingerprint: record.approval.fingerprint }
              : {}),
          })
        ).decision;
      }
      if (decision?.by !== 'timeout') continue;
      await host.serial(async () => {
        if (!host.current().requests[record.id]) return;
        record.stage = 'expired';
        await host.saveNow();
        await host.emit({
          type: 'request.expired',
          requestId: record.id,
          data: { decision: decision.decision, reason: decision.reason },
        });
        await host.finish(record);
      });
    }
  }

  async function markDeliveredByHook(record: RequestRecord): Promise<void> {
    const s = host.current();
    if (s.requests[record.id] !== record) return;
    if (record.stage !== 'answered' && record.stage !== 'delivering') return;
    record.stage = 'delivered';
    record.deliveredAt = new Date().toISOString();
    s.counters.delivered += 1;
    await host.saveNow();
    await host.emit({
      type: 'request.delivered',
      requestId: record.id,
      data: {
        method: 'stop-hook',
        chars: record.response?.instructions.length ?? 0,
      },
    });
    await host.finish(record);
  }

  /**
   * Write the decision on a hook's approval for the waiting hook, once, and
   * record who decided. The answer's first word decides unless `given`
   * says (a rule). Runs under `serial`.
   */
  async function decideApproval(
    record: RequestRecord,
    given?: Decider & { decision: ApprovalDecision },
  ): Promise<void> {
    const answer = parseApprovalAnswer(
      record.response?.instructions || record.response?.raw || '',
    );
    const decision = given?.decision ?? answer.decision;
    const decider =
      given ?? deciderOf(record.response?.source ?? '', record.response?.by);
    const decidedAt = new Date().toISOString();
    const stands = await decideOnce(paths, {
      id: record.id,
      decision,
      ...(record.approval ? { fingerprint: record.approval.fingerprint } : {}),
      by: decider.decidedBy,
      via: decider.via,
      reason: answer.reason,
      decidedAt,
    });
    if (stands.first) {
      record.stage = 'delivered';
      record.deliveredAt = decidedAt;
      record.decision = {
        decision,
        decidedBy: decider.decidedBy,
        via: decider.via,
        reason: answer.reason,
        at: decidedAt,
      };
      host.current().counters.delivered += 1;
      await host.saveNow();
      await host.emit({
        type: 'request.delivered',
        requestId: record.id,
        data: {
          method: 'decision',
          decision,
          decidedBy: decider.decidedBy,
          via: decider.via,
          ...(given || answer.recognized ? {} : { unrecognized: true }),
        },
      });
    } else {
      record.stage = 'expired';
      await host.saveNow();
      await host.emit({
        type: 'request.expired',
        requestId: record.id,
        data: {
          decision: stands.decision.decision,
          reason:
            'the answer came after the hook stopped waiting; its default stood',
        },
      });
    }
    await host.finish(record);
  }

  /**
   * The config's approval rules, before any answerer: a rule that matches
   * decides the approval at once (`decidedBy: rule`). Runs under `serial`.
   * True when a rule decided.
   */
  async function decideByRule(record: RequestRecord): Promise<boolean> {
    const approval = record.approval;
    if (!approval) return false;
    const verdict = evaluateApprovalRules(
      { tool: approval.tool, subjects: [approval.subject] },
      host.config.policy,
    );
    if (!verdict) return false;
    const { rule } = verdict;
    await recordRuleAnswer(record, verdict, host);
    await decideApproval(record, {
      decision: verdict.decision,
      decidedBy: 'rule',
      via: rule.name,
    });
    return true;
  }

  async function checkOnce(): Promise<void> {
    if (await refreshObservation()) {
      if (observation) await onObservation(observation);
    } else {
      await applyConfirmations();
    }
    await pickUpRequests();
    await expireApprovals();
  }

  function check(): Promise<void> {
    checking ??= checkOnce()
      .catch((error: unknown) => {
        log.error({ err: error }, 'hook check failed');
      })
      .finally(() => {
        checking = undefined;
      });
    return checking;
  }

  function watchDir(dir: string): void {
    try {
      const watcher = watch(dir, () => void check());
      watcher.on('error', () => watcher.close());
      watcher.unref();
      watchers.push(watcher);
    } catch {
      // fs.watch is a speed-up only; the poll covers everything.
    }
  }

  return {
    async start() {
      startedAt = Date.now();
      const s = host.current();
      const open = new Set(Object.keys(s.requests));
      await pruneClaims(paths, open, CLAIM_KEEP_MS).catch(() => 0);
      await ensurePrivateDir(hooksDir(paths));
      await ensurePrivateDir(path.dirname(requestsDir));
      await ensurePrivateDir(requestsDir);
      await refreshObservation();
      const at = observation ? Date.parse(observation.ts) : Number.NaN;
      const seenRecently =
        !Number.isNaN(at) && Date.now() - at < HOOKS_START_TIMEOUT_MS;
      setHooksStatus(
        kind === 'none'
          ? { status: 'off', since: new Date().toISOString() }
          : {
              status: seenRecently ? 'active' : 'waiting',
              since: new Date().toISOString(),
              ...(observation
                ? { lastEvent: observation.event, lastEventAt: observation.ts }
                : {}),
            },
      );
      if (kind !== 'none' && seenRecently && observation)
        await host.emit({
          type: 'hooks.active',
          data: { event: observation.event, at: observation.ts },
        });
      if (kind === 'claude') {
        startTimer = setTimeout(() => {
          void host
            .serial(async () => {
              const current = host.current();
              if (current.hooks?.status !== 'waiting' || stopped) return;
              const reason = inactiveReason(agent, HOOKS_START_TIMEOUT_MS);
              current.hooks = {
                ...current.hooks,
                status: 'inactive',
                since: new Date().toISOString(),
                reason,
              };
              await host.saveNow();
              await host.emit({ type: 'hooks.inactive', data: { reason } });
            })
            .catch(() => undefined);
        }, HOOKS_START_TIMEOUT_MS);
        startTimer.unref();
      }
      // A preset without hooks: no hook speaks for it (a call that claims
      // to is refused and recorded), so nothing here is watched or polled.
      if (kind !== 'none') {
        watchDir(hooksDir(paths));
        watchDir(requestsDir);
        // A backstop for the folder watchers above, which see changes at once.
        timer = setInterval(() => void check(), host.config.backstopMs);
        timer.unref();
      }
      await check();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      if (startTimer) clearTimeout(startTimer);
      if (settleTimer) clearTimeout(settleTimer);
      for (const watcher of watchers.splice(0)) watcher.close();
      await checking;
    },
    async resolveState(screen, screenSource = 'screen') {
      if (await refreshObservation().catch(() => false))
        if (observation) void onObservation(observation).catch(() => undefined);
      const result = arbitrateState(
        {
          hook: observation,
          screen,
          screenSource,
          now: Date.now(),
          ...(submittedAt !== undefined ? { submittedAt } : {}),
        },
        memo,
      );
      memo = result.memo;
      if (result.report) {
        emitQuietly({ type: 'state.disagreement', data: { ...result.report } });
      }
      return { state: result.state, source: result.source };
    },
    signalFor(requestId) {
      let controller = cancels.get(requestId);
      if (!controller) {
        controller = new AbortController();
        cancels.set(requestId, controller);
      }
      return controller.signal;
    },
    async deliveredByHook(record) {
      return (await readClaim(paths, record.id))?.by === 'hook';
    },
    async claimForTyping(record) {
      const result = await claimRequest(paths, record.id, 'bridge');
      const ours = result.type === 'claimed' || result.claim?.by === 'bridge';
      if (ours) typing.set(record.id, { record, at: Date.now() });
      cancels.delete(record.id);
      return ours;
    },
    markDeliveredByHook: (record) => {
      cancels.delete(record.id);
      return markDeliveredByHook(record);
    },
    decideApproval,
    noteSubmitted(at = Date.now()) {
      // Only Claude Code's hooks report prompts, and only hooks seen working
      // will speak again; other agents keep the screen.
      if (kind === 'claude' && host.current().hooks?.status === 'active')
        submittedAt = at;
    },
    latest: () => observation,
    check,
  };
}

/**
 * Record the answer an approval rule's verdict stands for on its request
 * (`answered`, saved, `request.answered`), for the hook and the screen
 * approvals alike. `data`: more for the event. Runs under `serial`.
 */
export async function recordRuleAnswer(
  record: RequestRecord,
  verdict: ApprovalRuleVerdict,
  host: Pick<HookLinkHost, 'saveNow' | 'emit'>,
  data: Record<string, unknown> = {},
): Promise<void> {
  const now = new Date().toISOString();
  record.response = ruleAnswer(verdict, now);
  record.answeredAt = now;
  record.stage = 'answered';
  await host.saveNow();
  await host.emit({
    type: 'request.answered',
    requestId: record.id,
    data: {
      source: record.response.source,
      ...data,
      chars: record.response.instructions.length,
    },
  });
}
