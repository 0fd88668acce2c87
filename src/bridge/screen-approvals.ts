/**
 * Approvals from screens (docs/backends.md, "Approvals from screens"): a
 * preset's permission dialog seen on a worker's screen becomes one
 * `type=approval` request (origin `screen`) whose body is the dialog's text
 * and whose fingerprint is a hash of it (screen/dialog.ts). The config's
 * approval rules decide first, then it is routed like any request. A
 * decision is applied by pressing the preset's keys for the dialog, never
 * by typing the answer, and only after the live screen was read again and
 * shows the same dialog, with the same fingerprint, in the same pane running
 * the same program; else nothing is pressed and the request is expired. A
 * dialog that leaves the screen before a decision (a person answered it
 * there) expires its request.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { PresetDialog } from '../config/presets/types.js';
import type { MacsConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { EventInput } from '../events/types.js';
import { evaluateApprovalRules } from '../hooks/policy.js';
import { recordRuleAnswer } from './hook-link.js';
import {
  deciderOf,
  parseApprovalAnswer,
  type Decider,
} from '../protocol/approval.js';
import { hashBody, makeRequestId } from '../protocol/ids.js';
import {
  dialogKeys,
  normalizeDialogText,
  readDialog,
  type DialogReading,
} from '../screen/dialog.js';
import type {
  AgentStateFile,
  AgentStateName,
  RequestRecord,
} from '../state/types.js';
import type { TmuxClient } from '../tmux/client.js';

/** After the keys, the dialog must leave the screen within this long. */
export const DIALOG_CONFIRM_MS = 5_000;
/** How often the screen is read while waiting for the dialog to leave. */
const DIALOG_CONFIRM_POLL_MS = 100;
/** How often a paused delivery looks whether it may go on. */
const PAUSE_POLL_MS = 250;
/** The tool name screen approvals carry for the approval rules. */
export const DIALOG_TOOL = 'dialog';

/** Screen states that say for sure no dialog is waiting. */
const NOT_A_DIALOG: readonly AgentStateName[] = [
  'working',
  'idle',
  'error',
  'dead',
];

/** What screen approvals need from their supervisor. */
export interface ScreenApprovalHost {
  agent: string;
  pane: string;
  config: MacsConfig;
  dialog: PresetDialog;
  tmux: TmuxClient;
  session?: string;
  /** Classify a captured screen with the preset's rules. */
  classify: (screen: string) => AgentStateName;
  /** May a new screen approval be raised now (false while hooks ask instead)? */
  enabled: () => boolean;
  /** The pid of the program in the pane now (`#{pane_pid}`). */
  panePid: () => number | undefined;
  serial: <T>(task: () => Promise<T>) => Promise<T>;
  current: () => AgentStateFile;
  emit: (input: Omit<EventInput, 'agent'>) => Promise<void>;
  saveNow: () => Promise<void>;
  /** A request id unique across agents (state/request-ids.ts). */
  claimId: (candidate: string) => Promise<string>;
  /** Route to the answerers (runs under `serial`). */
  route: (record: RequestRecord) => Promise<void>;
  /** Apply an answered one soon, outside `serial` (the supervisor's delivery). */
  schedule: (record: RequestRecord) => void;
  /** A person paused delivery to this agent: no key is pressed meanwhile. */
  isPaused: (record: RequestRecord) => boolean;
  /** How long the dialog may take to leave after the keys (DIALOG_CONFIRM_MS). */
  confirmMs?: number;
  /** End an open request unanswered (runs under `serial`). */
  expire: (record: RequestRecord, reason: string) => Promise<void>;
  /** Archive a finished request (runs under `serial`). */
  finish: (record: RequestRecord) => Promise<void>;
}

export interface ScreenApprovals {
  /**
   * After a reading of the screen (not under `serial`): raise a request for
   * a new dialog, expire the open ones whose dialog left or changed.
   * `screenState` is the screen's own classification (hooks aside);
   * `capturedAt` (epoch ms) when the capture was asked for: a reading older
   * than the last request raised or keys pressed is passed over (it may show
   * a dialog already answered).
   */
  observe: (
    screen: string,
    screenState: AgentStateName,
    capturedAt: number,
  ) => Promise<void>;
  /** Apply the decision of an answered screen approval (not under `serial`). */
  apply: (record: RequestRecord, signal: AbortSignal) => Promise<void>;
}

/** Is this a request raised from a dialog on the screen? */
export function isScreenApproval(record: RequestRecord): boolean {
  return record.origin === 'screen';
}

/** The fingerprint a screen approval was raised with. */
function fingerprintOf(record: RequestRecord): string | undefined {
  return record.approval?.fingerprint ?? record.attributes.fingerprint;
}

/** A pane's program name as a request attribute (`[A-Za-z0-9._:-]`). */
function programAttribute(command: string): string {
  return command.replace(/[^A-Za-z0-9._:-]/g, '_').slice(0, 64) || '_';
}

export function createScreenApprovals(
  host: ScreenApprovalHost,
): ScreenApprovals {
  const { agent, pane, dialog, tmux } = host;
  const confirmMs = host.confirmMs ?? DIALOG_CONFIRM_MS;
  /**
   * The dialog whose request ended while it stayed on the screen (keys that
   * did not close it, a pane check that failed): not raised again until it
   * leaves, so nothing loops on it.
   */
  let settled: string | undefined;
  let raising = false;
  /** When a request was last raised, or keys last pressed. */
  let lastActionAt = 0;

  function openScreenApprovals(): RequestRecord[] {
    return Object.values(host.current().requests).filter(isScreenApproval);
  }

  async function observe(
    screen: string,
    screenState: AgentStateName,
    capturedAt: number,
  ): Promise<void> {
    const reading =
      screenState === 'approval' ? readDialog(screen, dialog) : undefined;
    const definite =
      reading !== undefined || NOT_A_DIALOG.includes(screenState);
    await host.serial(async () => {
      if (capturedAt < lastActionAt) return;
      for (const record of openScreenApprovals()) {
        // An answered one is re-checked when it is applied, at once.
        if (record.stage !== 'detected' && record.stage !== 'routed') continue;
        if (!definite || reading?.fingerprint === fingerprintOf(record))
          continue;
        await host.expire(
          record,
          reading
            ? 'the dialog on the screen changed before a decision; nothing was pressed'
            : `the dialog left the screen before a decision (answered at the screen, or the agent went on; the screen reads ${screenState}); nothing was pressed`,
        );
      }
      if (!reading) {
        if (definite) settled = undefined;
        return;
      }
      if (reading.fingerprint === settled) return;
      if (
        openScreenApprovals().some(
          (r) => fingerprintOf(r) === reading.fingerprint,
        )
      )
        return;
      if (raising || !host.enabled()) return;
      raising = true;
      lastActionAt = Date.now();
      try {
        await raise(reading);
      } finally {
        raising = false;
      }
    });
  }

  /** A new dialog: one request, decided by a rule or routed. Under `serial`. */
  async function raise(reading: DialogReading): Promise<void> {
    const info = await tmux.paneInfo(pane).catch(() => undefined);
    const pid = host.panePid();
    if (!info || info.dead || pid === undefined || info.pid !== pid) return;
    const s = host.current();
    const now = new Date();
    const id = await host.claimId(
      makeRequestId({
        agent,
        body: `${reading.fingerprint}\n${reading.text}`,
        now,
      }),
    );
    const attributes: Record<string, string> = {
      type: 'approval',
      origin: 'screen',
      dialog: reading.name,
      fingerprint: reading.fingerprint,
      program: programAttribute(info.currentCommand),
    };
    const record: RequestRecord = {
      id,
      agent,
      type: 'approval',
      priority: 'high',
      attributes,
      approval: {
        source: 'screen',
        tool: DIALOG_TOOL,
        subject: normalizeDialogText(reading.text.split('\n')),
        fingerprint: reading.fingerprint,
      },
      bodyHash: hashBody(reading.text),
      body: reading.text,
      stage: 'detected',
      detectedAt: now.toISOString(),
      origin: 'screen',
      pane,
      panePid: pid,
      ...(host.session ? { session: host.session } : {}),
    };
    s.requests[id] = record;
    s.counters.detected += 1;
    await host.saveNow();
    await host.emit({
      type: 'request.detected',
      requestId: id,
      data: {
        type: 'approval',
        priority: 'high',
        origin: 'screen',
        attributes,
        fingerprint: reading.fingerprint,
        chars: reading.text.length,
        bodyHash: record.bodyHash,
        logOffset: s.logOffset,
      },
    });
    if (await decideByRule(record)) return;
    await host.route(record);
  }

  /**
   * The approval rules first (src/hooks/policy.ts), against the dialog's
   * text. Which tool a dialog is for is not known, so every deny rule
   * applies whatever tool it names (refusing more is safe), and an allow
   * rule only when it names a tool matching `dialog`: the text also holds
   * what the model wrote about the call. Under `serial`; true when a rule
   * decided.
   */
  async function decideByRule(record: RequestRecord): Promise<boolean> {
    const approval = record.approval;
    if (!approval) return false;
    const policy = host.config.policy;
    const verdict = evaluateApprovalRules(
      { tool: approval.tool, subjects: [approval.subject] },
      {
        deny: policy.deny.map(({ tool: _tool, ...rule }) => rule),
        allow: policy.allow.filter((rule) => rule.tool !== undefined),
      },
    );
    if (!verdict) return false;
    await recordRuleAnswer(record, verdict, host, {
      decidedBy: 'rule',
      via: verdict.rule.name,
    });
    host.schedule(record);
    return true;
  }

  /**
   * Why the decision must not be applied now, read from the live pane and
   * screen; undefined when the same dialog is there, in the same pane,
   * running the same program.
   */
  async function whyNot(record: RequestRecord): Promise<string | undefined> {
    const fingerprint = fingerprintOf(record);
    if (!fingerprint) return 'no fingerprint was kept for this dialog';
    if (record.panePid === undefined)
      return 'the program that showed the dialog is not known (a state rebuilt from the event log)';
    const info = await tmux.paneInfo(pane).catch(() => undefined);
    if (!info) return `pane ${pane} is gone`;
    if (info.dead) return `the program in pane ${pane} ended`;
    if (info.agentTag && info.agentTag !== agent)
      return `pane ${pane} is now tagged for agent '${info.agentTag}'`;
    if (info.pid !== record.panePid)
      return `pane ${pane} runs another program (pid ${String(info.pid)}) than the one that showed the dialog`;
    const program = record.attributes.program;
    if (program && programAttribute(info.currentCommand) !== program)
      return `pane ${pane} now runs ${info.currentCommand}, not the program that showed the dialog`;
    const screen = await tmux.capturePane(pane).catch(() => undefined);
    if (screen === undefined) return `pane ${pane} could not be read`;
    const reading =
      host.classify(screen) === 'approval'
        ? readDialog(screen, dialog)
        : undefined;
    if (!reading) return 'the dialog is no longer on the screen';
    if (reading.fingerprint !== fingerprint)
      return 'the dialog on the screen changed since it was asked';
    return undefined;
  }

  async function refuse(record: RequestRecord, reason: string): Promise<void> {
    await host.serial(async () => {
      if (host.current().requests[record.id] !== record) return;
      const fingerprint = fingerprintOf(record);
      if (fingerprint) settled = fingerprint;
      await host.expire(record, `${reason}; nothing was pressed`);
    });
  }

  /** Has the dialog left (or changed)? Reads the screen until the deadline. */
  async function waitForDialogToLeave(
    fingerprint: string,
    signal: AbortSignal,
  ): Promise<boolean> {
    const deadline = Date.now() + confirmMs;
    for (;;) {
      const screen = await tmux.capturePane(pane).catch(() => undefined);
      if (
        screen !== undefined &&
        readDialog(screen, dialog)?.fingerprint !== fingerprint
      )
        return true;
      if (Date.now() >= deadline || signal.aborted) return false;
      await delay(DIALOG_CONFIRM_POLL_MS, undefined, { signal }).catch(
        () => undefined,
      );
    }
  }

  async function apply(
    record: RequestRecord,
    signal: AbortSignal,
  ): Promise<void> {
    if (record.stage !== 'answered') return;
    // Paused by a person: keys wait too (then the dialog is looked at anew).
    while (host.isPaused(record)) {
      if (signal.aborted) return;
      await delay(PAUSE_POLL_MS, undefined, { signal }).catch(() => undefined);
    }
    if (signal.aborted) return;
    const answer = parseApprovalAnswer(
      record.response?.instructions || record.response?.raw || '',
    );
    const decider: Decider = deciderOf(
      record.response?.source ?? '',
      record.response?.by,
    );
    const before = await whyNot(record);
    if (before !== undefined) {
      await refuse(record, before);
      return;
    }
    const begun = await host.serial(async () => {
      if (
        host.current().requests[record.id] !== record ||
        record.stage !== 'answered' ||
        signal.aborted
      )
        return false;
      // The event first: a state rebuilt from the log must know that keys
      // may have been pressed (they are never pressed again).
      await host.emit({
        type: 'request.delivering',
        requestId: record.id,
        data: { method: 'dialog-keys' },
      });
      record.stage = 'delivering';
      record.deliveringAt = new Date().toISOString();
      await host.saveNow();
      return true;
    });
    if (!begun) return;
    // The last look, right before the keys.
    const last = await whyNot(record);
    if (last !== undefined) {
      await refuse(record, last);
      return;
    }
    const keys = dialogKeys(dialog, answer.decision);
    const fingerprint = fingerprintOf(record) ?? '';
    // Readings from before the keys may still show this dialog.
    lastActionAt = Date.now();
    settled = fingerprint;
    let pressed = 0;
    let failure: string | undefined;
    for (const key of keys) {
      try {
        await tmux.sendKey(pane, key);
        pressed += 1;
      } catch (error) {
        failure = errorMessage(error);
        break;
      }
    }
    const left =
      failure === undefined &&
      (await waitForDialogToLeave(fingerprint, signal));
    await host.serial(async () => {
      // Ended meanwhile (the program restarted: recorded unconfirmed there).
      if (host.current().requests[record.id] !== record) return;
      const at = new Date().toISOString();
      record.decision = {
        decision: answer.decision,
        decidedBy: decider.decidedBy,
        via: decider.via,
        reason: answer.reason,
        at,
      };
      record.deliveredAt = at;
      host.current().counters.delivered += 1;
      record.stage = 'delivered';
      await host.saveNow();
      await host.emit({
        type: 'request.delivered',
        requestId: record.id,
        data: {
          method: 'dialog-keys',
          keys: keys.slice(0, pressed),
          decision: answer.decision,
          decidedBy: decider.decidedBy,
          via: decider.via,
          ...(answer.recognized ? {} : { unrecognized: true }),
        },
      });
      if (left) {
        record.stage = 'confirmed';
        record.confirmedAt = new Date().toISOString();
        await host.saveNow();
        await host.emit({
          type: 'request.confirmed',
          requestId: record.id,
          data: { via: 'screen', dialog: dialog.name },
        });
      } else {
        record.stage = 'unconfirmed';
        await host.saveNow();
        await host.emit({
          type: 'delivery.unconfirmed',
          requestId: record.id,
          data: {
            reason:
              failure !== undefined
                ? `pressing ${keys.join(' ')} failed: ${failure}`
                : `the dialog still shows ${String(confirmMs)} ms after ${keys.join(' ')}; not pressed again`,
          },
        });
      }
      await host.finish(record);
    });
  }

  return { observe, apply };
}
