// Appeals in the PreToolUse hook (issue 32): a denial tells the agent how
// to appeal and is recorded; an overturned appeal's allowance lets the same
// call through once (then it is denied again) and no other call; the third
// similar denial in a row leaves a notice for the bridge and an event.
// Strategy: the real hook runner in a temporary home, fed Claude Code's
// PreToolUse input as it would be on stdin.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEvents } from '../../src/events/log.js';
import { runHook } from '../../src/hooks/runner.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { approvalFingerprint } from '../../src/protocol/approval.js';
import { grantAllowance, readDenials } from '../../src/state/denials.js';
import { hookRequestsDir } from '../../src/state/hook-files.js';

describe('appeals in the PreToolUse hook', () => {
  let paths: HomePaths;
  beforeEach(() => {
    paths = resolveHomePaths(
      mkdtempSync(path.join(os.tmpdir(), 'macs-appeal-')),
    );
  });
  afterEach(() => rmSync(paths.home, { recursive: true, force: true }));

  async function call(command: string): Promise<Record<string, string>> {
    const out: string[] = [];
    await runHook(
      { event: 'PreToolUse' },
      {
        env: { MACS_HOME: paths.home, MACS_AGENT: 'w1' },
        cwd: '/',
        readStdin: () =>
          Promise.resolve(
            JSON.stringify({
              session_id: 's-1',
              transcript_path: '/tmp/t.jsonl',
              hook_event_name: 'PreToolUse',
              tool_name: 'Bash',
              tool_input: { command },
              tool_use_id: `toolu_${command.length}`,
            }),
          ),
        stdinIsTTY: false,
        write: (line) => out.push(line),
      },
    );
    const reply = JSON.parse(out[0] ?? '{}') as {
      hookSpecificOutput?: Record<string, string>;
    };
    return reply.hookSpecificOutput ?? {};
  }

  it('a denial says how to appeal, naming the call, and is recorded', async () => {
    const reply = await call('rm -rf /');
    const fingerprint = approvalFingerprint('Bash', { command: 'rm -rf /' });
    expect(reply.permissionDecision).toBe('deny');
    expect(reply.permissionDecisionReason).toContain(
      `<<CONTROLLER_REQUEST type=appeal call=${fingerprint}>>`,
    );
    expect(await readDenials(paths, 'w1')).toEqual([
      expect.objectContaining({
        tool: 'Bash',
        subject: 'rm -rf /',
        rule: 'rm-everything',
        fingerprint,
        transcript: '/tmp/t.jsonl',
      }),
    ]);
  });

  it('an overturned appeal lets the same call through once', async () => {
    await grantAllowance(paths, 'w1', {
      fingerprint: approvalFingerprint('Bash', { command: 'rm -rf /' }),
      appeal: 'w1-a-1',
      reason: 'a throwaway container',
      at: new Date().toISOString(),
    });
    expect((await call('rm -rf ~')).permissionDecision).toBe('deny');
    const allowed = await call('rm -rf /');
    expect(allowed.permissionDecision).toBe('allow');
    expect(allowed.permissionDecisionReason).toMatch(/w1-a-1/);
    expect((await call('rm -rf /')).permissionDecision).toBe('deny');
    const events = await readEvents(paths, { agent: 'w1' });
    expect(
      events
        .filter((e) => e.type === 'hook.PreToolUse')
        .map((e) => e.data?.decision),
    ).toEqual(['deny', 'allow', 'deny']);
  });

  it('three similar denials in a row leave a notice for the bridge', async () => {
    await call('rm -rf /');
    await call('rm -rf ~');
    expect(existsSync(hookRequestsDir(paths, 'w1'))).toBe(false);
    await call('rm -r -f /');
    const files = readdirSync(hookRequestsDir(paths, 'w1'));
    expect(files).toHaveLength(1);
    const events = await readEvents(paths, { agent: 'w1' });
    expect(events.find((e) => e.type === 'denials.repeated')).toMatchObject({
      data: { tool: 'Bash', count: 3, rules: ['rm-everything'] },
    });
  });
});
