// How long common commands take to start and finish, against a bare
// `node -e 0` measured in the same run (issue 15): every command a person
// types, and `macs hook`, which agents run on every tool call.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, round, stats, tempHome } from './lib.mjs';

const MAIN = path.join(ROOT, 'dist', 'main.js');

/** Wall time of one run of argv, in ms (stdout and stderr discarded). */
function timeOnce(argv, options = {}) {
  const started = process.hrtime.bigint();
  const result = spawnSync(argv[0], argv.slice(1), {
    stdio: [
      options.input === undefined ? 'ignore' : 'pipe',
      'ignore',
      'ignore',
    ],
    ...(options.input === undefined ? {} : { input: options.input }),
    env: options.env ?? process.env,
    cwd: options.cwd,
  });
  if (result.error) throw result.error;
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/**
 * Medians of `runs` interleaved runs of each command (so a busy moment of
 * the machine hits all of them alike), and each one's ratio to bare node.
 */
export function benchStartup({ runs = 21 } = {}) {
  const { home, remove } = tempHome('startup');
  try {
    mkdirSync(path.join(home, '.macs'), { recursive: true, mode: 0o700 });
    writeFileSync(path.join(home, 'macs.config.json'), '{}\n');
    const env = { ...process.env, MACS_HOME: home };
    delete env.TMUX;
    delete env.TMUX_PANE;
    const hookInput = JSON.stringify({
      session_id: 's-1',
      transcript_path: '/tmp/t.jsonl',
      cwd: home,
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls -la' },
    });
    const commands = {
      node: { argv: [process.execPath, '-e', '0'] },
      '--version': { argv: [process.execPath, MAIN, '--version'] },
      inbox: { argv: [process.execPath, MAIN, 'inbox'] },
      'status --json': { argv: [process.execPath, MAIN, 'status', '--json'] },
      hook: {
        argv: [process.execPath, MAIN, 'hook', 'PreToolUse', '--agent', 'w1'],
        input: hookInput,
      },
    };
    const samples = Object.fromEntries(
      Object.keys(commands).map((name) => [name, []]),
    );
    // One warm-up of each (disk cache), then interleaved runs.
    for (const c of Object.values(commands))
      timeOnce(c.argv, { ...c, env, cwd: home });
    for (let i = 0; i < runs; i += 1)
      for (const [name, c] of Object.entries(commands))
        samples[name].push(timeOnce(c.argv, { ...c, env, cwd: home }));
    const node = stats(samples.node);
    const out = { runs, nodeMs: node, commands: {} };
    for (const [name, values] of Object.entries(samples)) {
      if (name === 'node') continue;
      const s = stats(values);
      out.commands[name] = { ms: s, overNodeP50: round(s.p50 / node.p50, 2) };
    }
    return out;
  } finally {
    remove();
  }
}
