import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createExecBackend, runExecCommand } from '../../src/backends/exec.js';
import type { BackendRequest } from '../../src/backends/types.js';
import type { EventSink } from '../../src/events/log.js';
import type { EventInput } from '../../src/events/types.js';
import { createLogger } from '../../src/log/logger.js';
import { buildContextPacket } from '../../src/protocol/context-packet.js';
import { splitResponse } from '../../src/protocol/response.js';
import { REPO_ROOT } from '../helpers/macs.js';
import { waitFor } from '../helpers/wait-for.js';

const FAKE_EXEC = path.join(REPO_ROOT, 'test', 'fixtures', 'fake-exec.mjs');
const node = (script: string) => [process.execPath, '-e', script];

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('runExecCommand', () => {
  const base = { timeoutMs: 10_000, cwd: REPO_ROOT };

  it('gives stdin byte-exact and never runs it through a shell', async () => {
    const input = `; rm -rf ~ && echo $(whoami) \`id\` "q" 'q' \${HOME} | cat > x\n🚀 ünï\ttab\r\nend`;
    const result = await runExecCommand(
      node('process.stdin.pipe(process.stdout)'),
      { ...base, input },
    );
    expect(result).toMatchObject({
      exitCode: 0,
      timedOut: false,
      aborted: false,
      stdout: input,
    });
  });

  it('returns a non-zero exit and stderr as values', async () => {
    const result = await runExecCommand(
      node('process.stderr.write("bad things"); process.exit(7)'),
      { ...base, input: '' },
    );
    expect(result).toMatchObject({ exitCode: 7, stderr: 'bad things' });
    expect(result.spawnError).toBeUndefined();
  });

  it('returns a command that cannot start as a value', async () => {
    const result = await runExecCommand(['/nonexistent/macs-answerer'], {
      ...base,
      input: '',
    });
    expect(result.spawnError).toMatch(/ENOENT|not found|no such/i);
    expect(result.exitCode).toBeUndefined();
  });

  // Regression: killing only the direct child on a timeout leaves what it
  // started running (and holding stdout open, so the run never ends). The
  // command runs in its own process group and the whole group is killed:
  // SIGTERM, then SIGKILL for whatever ignores it.
  it('on a timeout, kills the command and everything it started', async () => {
    const grandchild =
      "process.on('SIGTERM', () => {}); console.log(process.pid); setInterval(() => {}, 1000);";
    const parent = `
      const { spawn } = require('node:child_process');
      process.on('SIGTERM', () => {});
      spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: 'inherit' });
      setInterval(() => {}, 1000);`;
    // Were the grandchild (which keeps stdout open) not killed with it,
    // this call would never return: the test's own timeout is the guard.
    const result = await runExecCommand(node(parent), {
      ...base,
      input: '',
      // Long enough for both processes to start and the pid to be printed.
      timeoutMs: 1500,
    });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    const pid = Number(result.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    await waitFor(() => !isAlive(pid), {
      timeout: 3000,
      message: 'grandchild gone',
    });
  });

  it('stops when the signal aborts', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'macs-exec-'));
    const up = path.join(dir, 'up');
    try {
      const controller = new AbortController();
      const run = runExecCommand(
        node(
          `require('fs').writeFileSync(${JSON.stringify(up)}, 'up'); setInterval(() => {}, 1000)`,
        ),
        { ...base, input: '', signal: controller.signal },
      );
      // Aborted while it runs, not before it started.
      await waitFor(() => existsSync(up), { message: 'the command running' });
      controller.abort();
      const result = await run;
      expect(result).toMatchObject({ aborted: true, timedOut: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('createExecBackend', () => {
  const log = createLogger({ level: 'silent' });
  // Each backend's run folders go here (a home's `.macs/exec/`).
  const runDirs: string[] = [];
  const newRunDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'macs-exec-runs-'));
    runDirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of runDirs.splice(0))
      rmSync(dir, { recursive: true, force: true });
  });

  function recordingEvents(): EventSink & { events: EventInput[] } {
    const events: EventInput[] = [];
    return {
      events,
      emit(input) {
        events.push(input);
        return Promise.resolve({ ts: 'now', ...input });
      },
    };
  }

  const request = (over: Partial<BackendRequest> = {}): BackendRequest => {
    const base = {
      id: 'worker-1-q1',
      agent: 'worker-1',
      type: 'question',
      priority: 'normal' as const,
      attributes: { id: 'q1' },
      body: 'What now?',
      bodyHash: 'ab'.repeat(20),
      detectedAt: '2025-06-01T12:00:00.000Z',
      preset: 'generic',
    };
    return {
      ...base,
      context: buildContextPacket({
        ...base,
        requestId: base.id,
        screenLines: [],
        contextLines: 40,
        recent: [],
        now: new Date(),
      }),
      ...over,
    };
  };

  const backend = (args: string[], timeoutMs = 10_000) => {
    const events = recordingEvents();
    const runDir = newRunDir();
    return {
      events,
      runDir,
      exec: createExecBackend({
        argv: [process.execPath, FAKE_EXEC, ...args],
        timeoutMs,
        prompt: 'PROMPT TEXT',
        home: REPO_ROOT,
        runDir,
        events,
        log,
      }),
    };
  };

  it('answers with the response block, and records the run', async () => {
    const { exec, events, runDir } = backend(['--mode', 'answer']);
    const result = await exec.attempt(request());
    expect(result.type).toBe('answered');
    if (result.type !== 'answered') return;
    expect(result.source).toBe(`exec:${path.basename(process.execPath)}`);
    expect(splitResponse(result.text)).toMatchObject({
      id: 'worker-1-q1',
      instructions: 'exec answer for worker-1-q1',
    });
    expect(events.events.map((e) => e.type)).toEqual([
      'exec.started',
      'exec.finished',
    ]);
    expect(events.events[0]?.data).toMatchObject({ input: 'stdin' });
    expect(events.events[1]?.data).toMatchObject({
      exitCode: 0,
      timedOut: false,
    });
    // The run's private folder is gone with the run.
    expect(readdirSync(runDir)).toEqual([]);
  });

  it.each([
    [['--mode', 'fail'], 'exit-status'],
    [['--mode', 'empty'], 'empty-output'],
  ])('%j fails with %s', async (args, reason) => {
    const { exec } = backend(args);
    expect(await exec.attempt(request())).toMatchObject({
      type: 'failed',
      reason,
    });
  });

  it('fails with timeout when the command hangs', async () => {
    const { exec } = backend(['--mode', 'hang'], 300);
    expect(await exec.attempt(request())).toMatchObject({
      type: 'failed',
      reason: 'timeout',
      detail: { timedOut: true },
    });
  });

  it('fails with spawn-error when the command does not exist', async () => {
    const events = recordingEvents();
    const exec = createExecBackend({
      argv: ['/nonexistent/macs-answerer'],
      timeoutMs: 1000,
      home: REPO_ROOT,
      runDir: newRunDir(),
      events,
      log,
    });
    expect(await exec.attempt(request())).toMatchObject({
      type: 'failed',
      reason: 'spawn-error',
    });
  });

  it('refuses a request without a context packet', async () => {
    const { exec } = backend(['--mode', 'answer']);
    expect(await exec.attempt(request({ context: undefined }))).toMatchObject({
      type: 'failed',
      reason: 'no-context',
    });
  });

  it('resolves aborted once stopped', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'macs-exec-'));
    const record = path.join(dir, 'record.jsonl');
    try {
      const { exec } = backend(['--mode', 'hang', '--record', record]);
      const run = exec.attempt(request());
      // Stopped while the command hangs, not before it started.
      await waitFor(() => existsSync(record), {
        message: 'the command running',
      });
      await exec.stop();
      expect(await run).toEqual({ type: 'aborted' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
