/**
 * Asking the controller for an approval, from inside the hook call. The hook
 * leaves a request file for the bridge (which puts it to the controller)
 * and waits for the decision file the bridge writes back. The wait is
 * bounded: it ends at the timeout, or as soon as nobody can answer any
 * more (no bridge, the agent gone, or the agent went on without it); then
 * macs's default is recorded so a late answer cannot change what the agent
 * was told.
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ensurePrivateDir, writeFileAtomic } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';
import {
  decideOnce,
  hookRequestsDir,
  readDecision,
  readObservation,
  type DecisionFile,
  type HookRequestFile,
} from '../state/hook-files.js';
import { isProcessAlive } from '../state/process.js';
import type { ApprovalAsk } from './types.js';

/** How often an approval looks for its decision. */
export const ASK_POLL_MS = 100;
/** How often an approval checks that the bridge is still running. */
const BRIDGE_CHECK_MS = 2000;

/** Is a bridge supervising this agent? (`.macs/state/<agent>.lock` names a live pid.) */
export async function isBridgeRunning(
  paths: HomePaths,
  agent: string,
): Promise<boolean> {
  const text = await readFile(
    path.join(paths.state, `${agent}.lock`),
    'utf8',
  ).catch(() => '');
  const pid = Number.parseInt(text, 10);
  return Number.isFinite(pid) && pid > 0 && isProcessAlive(pid);
}

/**
 * What an approval ended with: the decision (or the default that stands),
 * how long the hook waited, and data for its event (`noBridge`, `mismatch`,
 * `late`).
 */
export interface AskOutcome {
  decision: Pick<DecisionFile, 'decision' | 'by' | 'reason'>;
  waitedMs: number;
  extra: Record<string, unknown>;
}

/**
 * Hook events that mean the agent went on after a PermissionRequest: its
 * dialog was answered at its screen (or the turn ended), so a decision
 * that comes now would be for a prompt that is gone.
 */
const MOVED_ON_EVENTS: ReadonlySet<string> = new Set([
  'PostToolUse',
  'PostToolUseFailure',
  'UserPromptSubmit',
  'Stop',
  'StopFailure',
  'SessionStart',
]);

/**
 * Ask the controller: leave the request for the bridge, then wait for the
 * decision file. Gives up at the timeout (or when the bridge goes away, or,
 * for a PermissionRequest, when the agent went on without it) and records
 * the default exclusively, so a late answer cannot change what the agent
 * was told. A decision is taken only for the same prompt (its fingerprint).
 */
export async function runAsk(
  paths: HomePaths,
  agent: string,
  ask: ApprovalAsk,
  now: () => Date,
): Promise<AskOutcome> {
  const started = Date.now();
  const fallback = (why: string): DecisionFile => ({
    id: ask.id,
    decision: ask.default,
    by: 'timeout',
    fingerprint: ask.fingerprint,
    reason:
      ask.default === 'dialog'
        ? `${why}; Claude Code's own dialog is left to a person`
        : `${why}; macs applied its default (${ask.default})`,
    decidedAt: now().toISOString(),
  });
  if (!(await isBridgeRunning(paths, agent))) {
    const decision = fallback(
      `no macs bridge is running for ${agent}, so nobody can approve this`,
    );
    return { decision, waitedMs: 0, extra: { noBridge: true } };
  }
  const dir = hookRequestsDir(paths, agent);
  const file = path.join(dir, `${ask.id}.json`);
  const createdAt = now().toISOString();
  const request: HookRequestFile = {
    id: ask.id,
    agent,
    type: 'approval',
    event: ask.event,
    tool: ask.tool,
    subject: ask.subject,
    ...(ask.rule ? { rule: ask.rule } : {}),
    fingerprint: ask.fingerprint,
    body: ask.body,
    createdAt,
    timeoutSec: ask.timeoutSec,
    default: ask.default,
    pid: process.pid,
    ...(ask.toolUseId ? { toolUseId: ask.toolUseId } : {}),
    ...(ask.sessionId ? { sessionId: ask.sessionId } : {}),
  };
  await ensurePrivateDir(path.dirname(dir));
  await ensurePrivateDir(dir);
  await writeFileAtomic(file, `${JSON.stringify(request, null, 2)}\n`);
  const deadline = started + ask.timeoutSec * 1000;
  let lastBridgeCheck = started;
  // The agent that runs this hook is our parent: once it is gone (the pane
  // was killed, the agent crashed) we are re-parented and nobody waits.
  const parent = process.ppid;
  let why = `no decision from the controller within ${ask.timeoutSec}s`;
  try {
    for (;;) {
      const decided = await readDecision(paths, ask.id);
      if (decided) {
        if (decided.fingerprint && decided.fingerprint !== ask.fingerprint)
          return {
            decision: fallback('the decision was for another prompt'),
            waitedMs: Date.now() - started,
            extra: { mismatch: true },
          };
        return { decision: decided, waitedMs: Date.now() - started, extra: {} };
      }
      if (Date.now() >= deadline) break;
      if (process.ppid !== parent) {
        why = `${agent} ended before a decision came`;
        break;
      }
      if (ask.event === 'PermissionRequest') {
        const seen = await readObservation(paths, agent);
        if (seen && seen.ts > createdAt && MOVED_ON_EVENTS.has(seen.event)) {
          why = `${agent} went on (${seen.event}) before a decision came: its dialog was answered at its screen`;
          break;
        }
      }
      if (Date.now() - lastBridgeCheck >= BRIDGE_CHECK_MS) {
        lastBridgeCheck = Date.now();
        if (!(await isBridgeRunning(paths, agent))) {
          why = `the macs bridge for ${agent} stopped before a decision came`;
          break;
        }
      }
      await delay(Math.min(ASK_POLL_MS, Math.max(1, deadline - Date.now())));
    }
    const stands = await decideOnce(paths, fallback(why));
    return {
      decision: stands.decision,
      waitedMs: Date.now() - started,
      extra: stands.first ? {} : { late: true },
    };
  } finally {
    // Picked up requests were moved by the bridge already; a request nobody
    // picked up must not turn into a question after the agent moved on.
    await rm(file, { force: true }).catch(() => undefined);
  }
}
