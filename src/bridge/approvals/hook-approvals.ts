/**
 * Approvals a hook asks for (docs/hooks.md): a PreToolUse call an `ask` rule
 * matched, or a Claude Code PermissionRequest, leaves a file in
 * `.macs/hook-requests/<agent>/` and waits. Each becomes a `type=approval`
 * request: the config's approval rules decide it at once, or it is routed
 * like any other. Its decision is written to `.macs/decisions/<id>.json`
 * for the waiting hook, once, never typed into the agent; an approval whose
 * hook stopped waiting is closed.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../../errors.js';
import type { EventInput } from '../../events/types.js';
import {
  decideOnce,
  hookRequestsDir,
  parseHookRequest,
  parseRepeatedDenials,
  readDecision,
  type ApprovalDecision,
} from '../../state/hook-files.js';
import { isProcessAlive } from '../../state/process.js';
import type { RequestRecord } from '../../state/types.js';
import type { Decider } from '../../protocol/approval.js';
import { rulingEventData, rulingOf, verdictOf } from './approval-decision.js';
import {
  decisionFile,
  goneHookDecision,
  hookApprovalRecord,
  hookDetectedData,
  isHookRequestFor,
} from './hook-approval-record.js';
import type { HookStageHost } from '../hook-link-host.js';
import { isSafeFileName } from '../../protocol/ids.js';
import { raiseRequest } from '../requests/raise.js';
import {
  repeatedDenialsDetectedData,
  repeatedDenialsRecord,
} from './repeated-denials.js';
import { takeStep } from '../../state/take-step.js';

export interface HookApprovals {
  /** Take the approvals the agent's hooks asked for since the last look. */
  pickUp: () => Promise<void>;
  /** Close the approvals whose hook gave up waiting (the agent has moved on). */
  expire: () => Promise<void>;
  /**
   * Write the decision on a hook's approval for the waiting hook, once, and
   * record who decided. The answer's first word decides unless `given`
   * says (a rule). Runs under `serial`.
   */
  decide: (
    record: RequestRecord,
    given?: Decider & { decision: ApprovalDecision },
  ) => Promise<void>;
}

export function createHookApprovals(
  host: Pick<
    HookStageHost,
    | 'agent'
    | 'paths'
    | 'config'
    | 'log'
    | 'serial'
    | 'current'
    | 'emit'
    | 'saveNow'
    | 'finish'
    | 'route'
  >,
): HookApprovals {
  const { agent, paths, log } = host;
  const requestsDir = hookRequestsDir(paths, agent);
  /** Request files being taken now (a watcher and the poll may both look). */
  const pickingUp = new Set<string>();

  function emitQuietly(input: Omit<EventInput, 'agent'>): void {
    void host.emit(input).catch(() => undefined);
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
    const notice = parseRepeatedDenials(text);
    if (notice && notice.agent === agent && isSafeFileName(notice.id)) {
      await host.serial(async () => {
        const s = host.current();
        if (
          !s.requests[notice.id] &&
          !s.recent.some((r) => r.id === notice.id)
        ) {
          const record = repeatedDenialsRecord(
            notice,
            new Date().toISOString(),
          );
          await raiseRequest(host, record, repeatedDenialsDetectedData(record));
          await rm(file, { force: true });
          await host.route(record);
        } else await rm(file, { force: true });
      });
      return;
    }
    const request = parseHookRequest(text);
    if (!isHookRequestFor(request, agent)) {
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
      const record = hookApprovalRecord(
        request,
        agent,
        new Date().toISOString(),
      );
      const raised = await raiseRequest(
        host,
        record,
        hookDetectedData(request, record),
      );
      await rm(file, { force: true });
      if (raised.type === 'ruled')
        await decide(record, {
          decision: raised.verdict.decision,
          decidedBy: 'rule',
          via: raised.verdict.rule.name,
        });
      else await host.route(record);
    });
  }

  async function expire(): Promise<void> {
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
          await decideOnce(
            paths,
            goneHookDecision(record, pid, new Date().toISOString()),
          )
        ).decision;
      }
      if (decision?.by !== 'timeout') continue;
      await host.serial(async () => {
        if (!host.current().requests[record.id]) return;
        const outcome = await takeStep(
          host,
          record,
          {
            type: 'closed',
            stage: 'expired',
            reason: decision.reason ?? 'the hook stopped waiting',
            by: 'timeout',
            at: new Date().toISOString(),
          },
          {
            type: 'request.expired',
            data: { decision: decision.decision, reason: decision.reason },
          },
        );
        // Decided meanwhile (a late look at a hook that gave up): it stands.
        if (outcome.type !== 'refused') await host.finish(record);
      });
    }
  }

  async function decide(
    record: RequestRecord,
    given?: Decider & { decision: ApprovalDecision },
  ): Promise<void> {
    const ruling = rulingOf(record.response, given);
    const decidedAt = new Date().toISOString();
    const stands = await decideOnce(
      paths,
      decisionFile(record, ruling, decidedAt),
    );
    if (stands.first) {
      record.decision = verdictOf(ruling, decidedAt);
      host.current().counters.delivered += 1;
      await takeStep(
        host,
        record,
        { type: 'delivered', at: decidedAt },
        {
          type: 'request.delivered',
          data: { method: 'decision', ...rulingEventData(ruling) },
        },
      );
    } else {
      const reason =
        'the answer came after the hook stopped waiting; its default stood';
      await takeStep(
        host,
        record,
        {
          type: 'closed',
          stage: 'expired',
          reason,
          by: 'timeout',
          at: decidedAt,
        },
        {
          type: 'request.expired',
          data: { decision: stands.decision.decision, reason },
        },
      );
    }
    await host.finish(record);
  }

  return { pickUp: pickUpRequests, expire, decide };
}
