import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isBridgeRunning, runAsk } from '../../src/hooks/ask.js';
import type { ApprovalAsk } from '../../src/hooks/types.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import {
  decideOnce,
  hookRequestsDir,
  readDecision,
  writeObservation,
} from '../../src/state/hook-files.js';
import { waitForHookRequest } from '../helpers/hook-requests.js';

let paths: HomePaths;
beforeEach(() => {
  paths = resolveHomePaths(mkdtempSync(path.join(os.tmpdir(), 'macs-ask-')));
});
afterEach(() => rmSync(paths.home, { recursive: true, force: true }));

const now = () => new Date();
const lock = (text: string) => {
  mkdirSync(paths.state, { recursive: true });
  writeFileSync(path.join(paths.state, 'w1.lock'), text);
};

function ask(overrides: Partial<ApprovalAsk> = {}): ApprovalAsk {
  return {
    id: 'w1-approval-0123456789ab',
    event: 'PreToolUse',
    tool: 'Bash',
    subject: 'git push',
    rule: 'ask-0',
    fingerprint: 'fedcba9876543210',
    body: 'w1 wants to push',
    timeoutSec: 30,
    default: 'deny',
    toolUseId: 'toolu_1',
    ...overrides,
  };
}

describe('isBridgeRunning', () => {
  it('needs a lock that names a live process', async () => {
    expect(await isBridgeRunning(paths, 'w1')).toBe(false);
    lock('not a pid\n');
    expect(await isBridgeRunning(paths, 'w1')).toBe(false);
    lock(`${process.pid}\n`);
    expect(await isBridgeRunning(paths, 'w1')).toBe(true);
    expect(await isBridgeRunning(paths, 'w2')).toBe(false);
  });
});

describe('runAsk', () => {
  it('without a bridge: the default at once, and no request left behind', async () => {
    const outcome = await runAsk(paths, 'w1', ask(), now);
    expect(outcome.waitedMs).toBe(0);
    expect(outcome.extra).toEqual({ noBridge: true });
    expect(outcome.decision).toMatchObject({ decision: 'deny', by: 'timeout' });
    expect(outcome.decision.reason).toContain(
      'no macs bridge is running for w1',
    );
    expect(outcome.decision.reason).toContain(
      'macs applied its default (deny)',
    );
    expect(existsSync(hookRequestsDir(paths, 'w1'))).toBe(false);
  });

  it('leaves a request for the bridge, takes the decision, and removes the request', async () => {
    lock(`${process.pid}\n`);
    const asking = runAsk(paths, 'w1', ask(), now);
    const { file, request } = await waitForHookRequest(paths, 'w1');
    expect(request).toMatchObject({
      id: 'w1-approval-0123456789ab',
      agent: 'w1',
      type: 'approval',
      event: 'PreToolUse',
      tool: 'Bash',
      subject: 'git push',
      rule: 'ask-0',
      fingerprint: 'fedcba9876543210',
      body: 'w1 wants to push',
      timeoutSec: 30,
      default: 'deny',
      pid: process.pid,
      toolUseId: 'toolu_1',
    });
    await decideOnce(paths, {
      id: request.id,
      decision: 'allow',
      fingerprint: request.fingerprint ?? '',
      by: 'controller',
      reason: 'allow: fine',
      decidedAt: new Date().toISOString(),
    });
    const outcome = await asking;
    expect(outcome.decision).toMatchObject({
      decision: 'allow',
      by: 'controller',
      reason: 'allow: fine',
    });
    expect(outcome.extra).toEqual({});
    expect(existsSync(file)).toBe(false);
  });

  it("refuses a decision made for another prompt: Claude Code's dialog stays", async () => {
    lock(`${process.pid}\n`);
    const asking = runAsk(
      paths,
      'w1',
      ask({ event: 'PermissionRequest', default: 'dialog' }),
      now,
    );
    const { request } = await waitForHookRequest(paths, 'w1');
    await decideOnce(paths, {
      id: request.id,
      decision: 'allow',
      fingerprint: '0000000000000000',
      by: 'controller',
      reason: 'allow',
      decidedAt: new Date().toISOString(),
    });
    const outcome = await asking;
    expect(outcome.extra).toEqual({ mismatch: true });
    expect(outcome.decision).toMatchObject({
      decision: 'dialog',
      by: 'timeout',
    });
    expect(outcome.decision.reason).toBe(
      "the decision was for another prompt; Claude Code's own dialog is left to a person",
    );
  });

  it('stops waiting once the agent went on without the decision, and records the default first', async () => {
    lock(`${process.pid}\n`);
    const asking = runAsk(
      paths,
      'w1',
      ask({ event: 'PermissionRequest', default: 'dialog' }),
      now,
    );
    const { request } = await waitForHookRequest(paths, 'w1');
    await writeObservation(paths, 'w1', {
      event: 'PostToolUse',
      ts: new Date(Date.now() + 1000).toISOString(),
      state: 'working',
    });
    const outcome = await asking;
    expect(outcome.decision).toMatchObject({
      decision: 'dialog',
      by: 'timeout',
    });
    expect(outcome.decision.reason).toMatch(/w1 went on \(PostToolUse\)/);
    expect(await readDecision(paths, request.id)).toMatchObject({
      decision: 'dialog',
      by: 'timeout',
    });
    expect(readdirSync(hookRequestsDir(paths, 'w1'))).toEqual([]);
  });
});
