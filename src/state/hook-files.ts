/**
 * The files through which `macs hook` (a short-lived process that the agent
 * starts) and the bridge (a long-running process) talk to each other. Each
 * file has exactly one writer, so no lock is needed:
 *
 * - `.macs/hooks/<agent>.json`: the latest hook observation (written by hooks).
 * - `.macs/hook-requests/<agent>/<id>.json`: an approval a hook asks for
 *   (written by the hook, removed by the bridge once it has recorded it).
 * - `.macs/decisions/<id>.json`: the decision on that approval (created once,
 *   exclusively, by whoever decides first: the bridge with the controller's
 *   answer, or the hook when it gives up waiting and applies its default).
 *
 * The bridge's own state file stays the bridge's: hooks only read it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { HomePaths } from '../home/paths.js';
import {
  createExclusive,
  ensurePrivateDir,
  writeFileAtomic,
} from '../home/fs.js';
import { AGENT_STATE_NAMES, type AgentStateName } from '../config/states.js';

export function hooksDir(paths: HomePaths): string {
  return path.join(paths.runtime, 'hooks');
}

export function observationPath(paths: HomePaths, agent: string): string {
  return path.join(hooksDir(paths), `${agent}.json`);
}

export function hookRequestsDir(paths: HomePaths, agent: string): string {
  return path.join(paths.runtime, 'hook-requests', agent);
}

export function decisionsDir(paths: HomePaths): string {
  return path.join(paths.runtime, 'decisions');
}

export function decisionPath(paths: HomePaths, id: string): string {
  return path.join(decisionsDir(paths), `${id}.json`);
}

/** Where per-agent settings files for agents started by macs are written. */
export function agentSettingsDir(paths: HomePaths): string {
  return path.join(paths.runtime, 'settings');
}

/** The latest thing a hook saw: `.macs/hooks/<agent>.json`. */
export interface HookObservation {
  /** The agent state the hook implies; absent when the event says nothing about it. */
  state?: AgentStateName;
  /** The hook event (`Stop`, `UserPromptSubmit`, `notify`, ...). */
  event: string;
  /** When the hook ran (ISO). */
  ts: string;
  /** A Stop hook handed this request's answer to the agent (no typing). */
  delivered?: string;
  /** Stop hooks in a row that blocked (guard against endless blocking). */
  consecutiveBlocks?: number;
  /**
   * When the agent last accepted a prompt (UserPromptSubmit), carried forward
   * by later hooks so a bridge that reads the file late still sees it.
   */
  lastPromptAt?: string;
  /**
   * Claude Code: the conversation's transcript (`transcript_path` of its
   * hook input), where macs reads its token usage (docs/usage.md); carried
   * forward by later hooks.
   */
  transcriptPath?: string;
  /**
   * Written by PreCompact, carried forward until a SessionStart clears it:
   * the compaction's trigger (`manual`, `auto`), which the SessionStart
   * that ends the compaction records.
   */
  trigger?: string;
}

/**
 * An approval a hook asks for: a PreToolUse call an `ask` rule matched, or
 * a Claude Code PermissionRequest.
 */
export interface HookRequestFile {
  id: string;
  agent: string;
  type: 'approval';
  /** The hook event that asked (`PreToolUse`, `PermissionRequest`). */
  event: string;
  tool: string;
  /** What the tool would do: the command, file path or URL. */
  subject: string;
  /** The policy rule that made macs ask (PreToolUse only). */
  rule?: string;
  /** Hash of the tool and its whole input (protocol/approval.ts). */
  fingerprint?: string;
  /** The request text the controller sees. */
  body: string;
  createdAt: string;
  /** The hook waits this long for a decision, then applies `default`. */
  timeoutSec: number;
  default: ApprovalOutcome;
  /** The waiting hook's process: once it is gone, nobody takes a decision. */
  pid?: number;
  toolUseId?: string;
  sessionId?: string;
}

export type ApprovalDecision = 'allow' | 'deny';

/**
 * How an approval ends for the hook: allowed, denied, or (PermissionRequest
 * only) left to Claude Code's own dialog, which a person answers on screen.
 */
export type ApprovalOutcome = ApprovalDecision | 'dialog';

/** `.macs/decisions/<id>.json`. */
export interface DecisionFile {
  id: string;
  decision: ApprovalOutcome;
  /** The fingerprint of the prompt the decision is for (when it had one). */
  fingerprint?: string;
  /**
   * Who decided: a rule of the config, the controller, a person (docs/backends.md),
   * or nobody in time (`timeout`: the hook applied its default).
   */
  by: 'rule' | 'controller' | 'person' | 'timeout';
  /** The rule's name, or how the answer came (`mcp:decide_approval`, `outbox`, ...). */
  via?: string;
  /** The reason shown to the agent (the controller's instructions). */
  reason: string;
  decidedAt: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON object, or undefined for anything else (bad JSON, an array...). */
function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Pure: a parsed observation file, or undefined when it is not one. */
export function parseObservation(text: string): HookObservation | undefined {
  const value = parseJsonObject(text);
  if (!value) return undefined;
  if (typeof value.event !== 'string' || typeof value.ts !== 'string')
    return undefined;
  if (Number.isNaN(Date.parse(value.ts))) return undefined;
  const state = AGENT_STATE_NAMES.find((s) => s === value.state);
  return {
    event: value.event,
    ts: value.ts,
    ...(state ? { state } : {}),
    ...(typeof value.delivered === 'string'
      ? { delivered: value.delivered }
      : {}),
    ...(typeof value.consecutiveBlocks === 'number'
      ? { consecutiveBlocks: value.consecutiveBlocks }
      : {}),
    ...(typeof value.lastPromptAt === 'string'
      ? { lastPromptAt: value.lastPromptAt }
      : {}),
    ...(typeof value.transcriptPath === 'string'
      ? { transcriptPath: value.transcriptPath }
      : {}),
    ...(typeof value.trigger === 'string' ? { trigger: value.trigger } : {}),
  };
}

export async function readObservation(
  paths: HomePaths,
  agent: string,
): Promise<HookObservation | undefined> {
  try {
    return parseObservation(
      await readFile(observationPath(paths, agent), 'utf8'),
    );
  } catch {
    return undefined;
  }
}

export async function writeObservation(
  paths: HomePaths,
  agent: string,
  observation: HookObservation,
): Promise<void> {
  await ensurePrivateDir(hooksDir(paths));
  await writeFileAtomic(
    observationPath(paths, agent),
    `${JSON.stringify(observation)}\n`,
  );
}

/** Pure: a parsed hook request, or undefined when the text is not one. */
export function parseHookRequest(text: string): HookRequestFile | undefined {
  const value = parseJsonObject(text);
  if (!value) return undefined;
  const strings = [
    'id',
    'agent',
    'event',
    'tool',
    'subject',
    'body',
    'createdAt',
  ];
  if (!strings.every((k) => typeof value[k] === 'string')) return undefined;
  if (value.type !== 'approval') return undefined;
  if (!isOutcome(value.default)) return undefined;
  if (typeof value.timeoutSec !== 'number') return undefined;
  for (const key of ['rule', 'fingerprint'])
    if (value[key] !== undefined && typeof value[key] !== 'string')
      return undefined;
  if (value.pid !== undefined && !Number.isInteger(value.pid)) return undefined;
  return value as unknown as HookRequestFile;
}

/**
 * A notice a hook leaves for the bridge among the hook requests: the agent's
 * last denials were alike (state/denials.ts). The bridge raises it as a
 * request to the controller and calls a person; the hook waits for nothing.
 */
export interface RepeatedDenialsNotice {
  id: string;
  agent: string;
  type: 'repeated-denials';
  denials: {
    at: string;
    tool: string;
    subject: string;
    rule: string;
    fingerprint: string;
  }[];
  createdAt: string;
}

/** Pure: a parsed repeated-denials notice, or undefined. */
export function parseRepeatedDenials(
  text: string,
): RepeatedDenialsNotice | undefined {
  const value = parseJsonObject(text);
  if (!value || value.type !== 'repeated-denials') return undefined;
  if (typeof value.id !== 'string' || typeof value.agent !== 'string')
    return undefined;
  if (typeof value.createdAt !== 'string' || !Array.isArray(value.denials))
    return undefined;
  const fields = ['at', 'tool', 'subject', 'rule', 'fingerprint'];
  const ok = (value.denials as unknown[]).every(
    (d) =>
      typeof d === 'object' &&
      d !== null &&
      fields.every(
        (k) => typeof (d as Record<string, unknown>)[k] === 'string',
      ),
  );
  return ok ? (value as unknown as RepeatedDenialsNotice) : undefined;
}

function isOutcome(value: unknown): value is ApprovalOutcome {
  return value === 'allow' || value === 'deny' || value === 'dialog';
}

/** Pure: a parsed decision file, or undefined. */
export function parseDecision(text: string): DecisionFile | undefined {
  const value = parseJsonObject(text);
  if (!value) return undefined;
  if (!isOutcome(value.decision)) return undefined;
  if (typeof value.id !== 'string') return undefined;
  return {
    id: value.id,
    decision: value.decision,
    ...(typeof value.fingerprint === 'string'
      ? { fingerprint: value.fingerprint }
      : {}),
    by:
      value.by === 'timeout' || value.by === 'rule' || value.by === 'person'
        ? value.by
        : 'controller',
    ...(typeof value.via === 'string' ? { via: value.via } : {}),
    reason: typeof value.reason === 'string' ? value.reason : '',
    decidedAt: typeof value.decidedAt === 'string' ? value.decidedAt : '',
  };
}

export async function readDecision(
  paths: HomePaths,
  id: string,
): Promise<DecisionFile | undefined> {
  try {
    return parseDecision(await readFile(decisionPath(paths, id), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Record a decision unless one exists. Returns the decision that stands:
 * ours when we were first, else the one already there.
 */
export async function decideOnce(
  paths: HomePaths,
  decision: DecisionFile,
): Promise<{ first: boolean; decision: DecisionFile }> {
  const created = await createExclusive(
    decisionPath(paths, decision.id),
    `${JSON.stringify(decision)}\n`,
  );
  if (created) return { first: true, decision };
  const existing = await readDecision(paths, decision.id);
  return { first: false, decision: existing ?? decision };
}
