// `macs hook` runs on every tool call of every agent, so what it loads is
// its start-up (issue 15). Zod and the config's schemas were more than half
// of it; now a call validates a config it has not seen (zod, loaded then),
// and later calls read the validated config from a cache
// (src/hooks/config-cache.ts) and load no zod at all. Checked on the build:
// the trace lists every module the process loads.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  loadedSources,
  readAllEvents,
  REPO_ROOT,
  runMacs,
} from '../helpers/macs.js';
import { makeTempHome } from '../helpers/tmux-server.js';

const SCHEMAS = [
  'src/config/load.ts',
  'src/config/schema.ts',
  'src/config/policy.ts',
  'src/config/presets/types.ts',
];

describe('what `macs hook` loads', () => {
  let home: string;
  let cleanup: () => void;
  let trace: string;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-hook-imports-'));
    mkdirSync(path.join(home, '.macs'), { mode: 0o700 });
    trace = path.join(home, 'imports.txt');
  });
  afterEach(() => cleanup());

  /** One PreToolUse of `command`: the reply's decision and what was loaded. */
  async function preToolUse(command: string) {
    writeFileSync(trace, '');
    const run = await runMacs(['hook', 'PreToolUse', '--agent', 'w1'], {
      home,
      input: JSON.stringify({
        session_id: 's-1',
        transcript_path: '/tmp/t.jsonl',
        cwd: home,
        permission_mode: 'default',
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command },
      }),
      env: {
        NODE_OPTIONS: `--import=${path.join(REPO_ROOT, 'test', 'fixtures', 'trace-imports.mjs')}`,
        MACS_TRACE_IMPORTS: trace,
      },
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const reply = run.stdout.trim()
      ? (JSON.parse(run.stdout) as {
          hookSpecificOutput: { permissionDecision: string };
        })
      : undefined;
    return {
      decision: reply?.hookSpecificOutput.permissionDecision ?? 'none',
      loaded: loadedSources(readFileSync(trace, 'utf8')),
    };
  }

  const zodIn = (loaded: string[]) =>
    loaded.filter((s) => s.startsWith('node_modules/zod/'));

  it('validates a config it has not seen with zod, then reads it from its cache without', async () => {
    const configFile = path.join(home, 'macs.config.json');
    writeFileSync(
      configFile,
      JSON.stringify({ policy: { deny: ['@default', '\\bshutdown\\b'] } }),
    );
    const first = await preToolUse('shutdown -h now');
    expect(first.decision).toBe('deny');
    expect(zodIn(first.loaded)).not.toEqual([]);
    expect(first.loaded).toEqual(expect.arrayContaining(SCHEMAS.slice(0, 3)));

    // The same config: read from the cache, no zod, the same decisions.
    const second = await preToolUse('shutdown -h now');
    expect(second.decision).toBe('deny');
    expect((await preToolUse('rm -rf /')).decision).toBe('deny');
    const third = await preToolUse('ls -la');
    expect(third.decision).toBe('none');
    for (const { loaded } of [second, third]) {
      expect(loaded).toContain('src/hooks/config-cache.ts');
      expect(zodIn(loaded)).toEqual([]);
      expect(loaded.filter((s) => SCHEMAS.includes(s))).toEqual([]);
    }

    // A config broken since: validated again and reported, the default
    // policy applied (shutdown passes, rm -rf / is still denied).
    writeFileSync(configFile, JSON.stringify({ policy: { deny: 'all' } }));
    const broken = await preToolUse('shutdown -h now');
    expect(broken.decision).toBe('none');
    expect(zodIn(broken.loaded)).not.toEqual([]);
    expect((await preToolUse('rm -rf /')).decision).toBe('deny');
    const errors = readAllEvents(home).filter((e) => e.type === 'error');
    expect(errors.map((e) => e.data?.message)).toEqual([
      expect.stringMatching(/^config unreadable, using the default policy: /),
      expect.stringMatching(/^config unreadable, using the default policy: /),
    ]);
  });
});
