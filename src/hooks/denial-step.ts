/**
 * A call a deny rule refused (docs/hooks.md#appeals), after the pure plan:
 * an overturned appeal's allowance for this very call lets it through once;
 * otherwise the denial is recorded for an appeal, and the third alike in a
 * row leaves a notice the bridge raises to the controller and a person.
 */
import path from 'node:path';
import type { HomePaths } from '../home/paths.js';
import { ensurePrivateDir, writeFileAtomic } from '../home/fs.js';
import { hashBody, makeRequestId } from '../protocol/ids.js';
import { recordDenial, takeAllowance } from '../state/denials.js';
import {
  hookRequestsDir,
  type RepeatedDenialsNotice,
} from '../state/hook-files.js';
import { overturnedReply } from './claude-approval.js';
import type { HookPlan } from './types.js';

export async function applyDenial(
  paths: HomePaths,
  agent: string,
  plan: HookPlan,
  now: Date,
): Promise<HookPlan> {
  const denial = plan.denial;
  if (!denial) return plan;
  const allowance = await takeAllowance(paths, agent, denial.fingerprint);
  if (allowance) {
    return {
      reply: overturnedReply(allowance.appeal, allowance.reason),
      observation: { state: 'working' },
      events: plan.events.map((event) =>
        event.type === 'hook.PreToolUse'
          ? {
              ...event,
              data: {
                ...event.data,
                decision: 'allow',
                by: 'appeal',
                appeal: allowance.appeal,
                fingerprint: denial.fingerprint,
              },
            }
          : event,
      ),
    };
  }
  const at = now.toISOString();
  const repeated = await recordDenial(paths, agent, { at, ...denial });
  if (!repeated) return plan;
  const subjects = repeated.map((d) => d.subject).join('\n');
  const notice: RepeatedDenialsNotice = {
    id: makeRequestId({
      agent,
      workerId: `denials-${hashBody(`${subjects}\n${at}`).slice(0, 12)}`,
      body: subjects,
      now,
    }),
    agent,
    type: 'repeated-denials',
    denials: repeated.map(({ at, tool, subject, rule, fingerprint }) => ({
      at,
      tool,
      subject,
      rule,
      fingerprint,
    })),
    createdAt: at,
  };
  const dir = hookRequestsDir(paths, agent);
  await ensurePrivateDir(dir);
  await writeFileAtomic(
    path.join(dir, `${notice.id}.json`),
    `${JSON.stringify(notice)}\n`,
  );
  return {
    ...plan,
    events: [
      ...plan.events,
      {
        type: 'denials.repeated',
        requestId: notice.id,
        data: {
          tool: denial.tool,
          count: repeated.length,
          rules: [...new Set(repeated.map((d) => d.rule))],
        },
      },
    ],
  };
}
