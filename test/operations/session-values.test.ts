// The session's operations moved out of the CLI (issue 30) return values
// the door prints: the hosts' part of `macs stop`, `--resume` with nothing
// recorded, and the demo's closing lines. Strategy: call each operation
// with a temp home and a parsed config, no tmux and no ssh needed, and
// check the value (and the error's hint) it gives.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';
import { resolveHomePaths } from '../../src/home/paths.js';
import { createLogger } from '../../src/log/logger.js';
import { runOnHosts, stopOnHosts } from '../../src/operations/host-sessions.js';
import { demoResultLines } from '../../src/session/demo/narration.js';
import { resumeSession } from '../../src/session/resume-session.js';

describe('the session operations return what the door prints', () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'macs-session-ops-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("the hosts' stop: nothing without hosts, exit 2 naming a host the config lacks", async () => {
    const config = ConfigSchema.parse({});
    expect(await stopOnHosts(config, {}, undefined)).toBeUndefined();
    expect(await stopOnHosts(undefined, {}, 'gpu1')).toEqual({
      code: 2,
      out: [],
      err: ["macs: no host 'gpu1' in macs.config.json"],
    });
    const hub = ConfigSchema.parse({
      hosts: { gpu1: { ssh: 'dev@gpu1', home: '/srv/proj' } },
    });
    expect(await runOnHosts('stop', hub, {}, 'gpu9')).toEqual({
      code: 2,
      out: [],
      err: ["macs: no host 'gpu9' in macs.config.json"],
    });
  });

  it('--resume with no recorded session is refused, hinting the same home', async () => {
    const paths = resolveHomePaths(home);
    const run = resumeSession(
      {
        inv: { home, cwd: home, env: { PATH: '' } },
        home: { paths, log: createLogger({ level: 'silent' }) },
        runTmux: () => Promise.reject(new Error('no tmux in this test')),
      },
      () => undefined,
    );
    await expect(run).rejects.toThrow(/there is no session to resume/);
    await expect(run).rejects.toMatchObject({
      hint: expect.stringContaining(`start --home ${home}`) as unknown,
    });
  });

  it("the demo's closing lines: each request, its answer, what to try next", () => {
    const lines = demoResultLines(
      {
        runId: 'r1',
        agent: 'worker-1',
        protocolReceived: true,
        startedAt: '2026-01-01T00:00:00.000Z',
        finishedAt: '2026-01-01T00:00:12.500Z',
        requests: [
          {
            id: 'worker-1-r1-q1',
            type: 'question',
            asked: 'Which?',
            answer: 'This.\nNOTES',
            did: ['ok'],
          },
        ],
      },
      (sub) => `macs ${sub}`,
    );
    expect(lines).toContain(
      'The demo finished in 12.5 s. worker-1 asked 1 requests; for each, the bridge',
    );
    expect(lines).toContain('  question  Which?');
    expect(lines).toContain('            → This.');
    expect(lines.at(-1)).toBe(
      `  ${'macs start --worker "codex"'.padEnd(34)} then a real agent`,
    );
  });
});
