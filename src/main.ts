#!/usr/bin/env node
import { createOutput } from './cli/output.js';
import { MacsError } from './errors.js';
import { VERSION } from './version.js';

// A reader that went away (`macs status | head`) ends us quietly, with exit 0,
// as it does the programs of a shell pipeline; any other output error is a
// failure.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (error: NodeJS.ErrnoException) => {
    process.exit(error.code === 'EPIPE' ? 0 : 1);
  });

/** Read all of stdin; with `maxBytes`, stop and reject once it is longer. */
async function readStdin(maxBytes = Infinity): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      // Stop reading: what follows is never held in memory.
      process.stdin.destroy();
      throw new MacsError(`input longer than ${maxBytes} bytes; not read`, {
        exitCode: 2,
      });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The entry point: build the program, run it, one top-level catch, the only process.exit. */
async function main(): Promise<number> {
  const output = createOutput();
  const argv = process.argv.slice(2);
  // `macs --version` answers before anything else is loaded (start-up).
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    output.out(VERSION);
    return 0;
  }
  // `macs hook` runs on every tool call of every agent: without commander
  // (cli/hook-argv.ts); it always exits 0 and reports problems as events.
  // Other commands do not load its argument reader.
  const hook =
    argv[0] === 'hook'
      ? (await import('./cli/hook-argv.js')).parseHookArgv(
          argv.filter((a) => a !== '--debug'),
          process.env,
        )
      : undefined;
  if (hook) {
    const { runHookCommand } = await import('./cli/hook.js');
    return runHookCommand(hook.event, hook.payload, hook.opts, {
      output,
      env: process.env,
      cwd: process.cwd(),
      readStdin,
      stdinIsTTY: Boolean(process.stdin.isTTY),
    });
  }
  const debug = argv.includes('--debug') || process.env.MACS_DEBUG === '1';
  // The build is a bundle: with --debug, stack traces name the sources
  // (src/...) through its source maps.
  if (debug) process.setSourceMapsEnabled(true);
  const [{ buildProgram }, { createControlChannel }, { createRunTmux }] =
    await Promise.all([
      import('./cli/program.js'),
      import('./tmux/control.js'),
      import('./tmux/run.js'),
    ]);
  // `on`, not `once`: execa's signal-exit (loaded while a subprocess runs)
  // re-raises a signal when it sees no other listener, which kills us before
  // a long-running command can stop cleanly. A second signal forces the exit.
  let signals = 0;
  // SIGHUP (the bridge's tmux window closed) stops as SIGTERM does.
  const interrupted = new Promise<'SIGINT' | 'SIGTERM'>((resolve) => {
    const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
      signals += 1;
      if (signals > 1) process.exit(130);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('SIGHUP', () => onSignal('SIGTERM'));
  });
  const program = buildProgram({
    output,
    env: process.env,
    cwd: process.cwd(),
    runTmux: createRunTmux({ env: process.env }),
    openTmuxControl: (socket, options) =>
      createControlChannel({
        ...(socket ? { socket } : {}),
        env: process.env,
        ...(options?.onDrop ? { onDrop: options.onDrop } : {}),
      }),
    stdinIsTTY: Boolean(process.stdin.isTTY),
    readStdin,
    interrupted,
  });
  try {
    return await program.run(argv.filter((a) => a !== '--debug'));
  } catch (error) {
    if (error instanceof MacsError) {
      output.err(`macs: ${error.message}`);
      if (error.hint) output.err(`hint: ${error.hint}`);
      if (debug && error.stack) output.err(error.stack);
      return error.exitCode;
    }
    output.err(
      `macs: unexpected error: ${error instanceof Error ? error.message : String(error)}`,
    );
    if (error instanceof Error && error.stack)
      output.err(
        debug
          ? error.stack
          : 'hint: run again with --debug for the stack trace',
      );
    return 1;
  }
}

const code = await main();
process.exitCode = code;
// Long-running commands leave watchers behind only on a bug; never hang on exit.
setTimeout(() => process.exit(code), 200).unref();
