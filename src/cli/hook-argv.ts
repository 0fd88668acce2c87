/**
 * `macs hook` runs on every tool call of every agent, so main.ts gives it a
 * path of its own that skips commander (loading and registering every
 * command costs more than the hook's own work). Pure: the arguments as
 * commander would read them for this one command, or undefined to let
 * commander handle them (help, or no event given).
 */
import type { HookOptions } from './hook.js';

export interface HookArgv {
  event: string;
  payload?: string;
  opts: HookOptions;
}

const VALUE_OPTIONS = {
  '--agent': 'agent',
  '--home': 'home',
  '--config': 'config',
} as const;
type ValueOption = keyof typeof VALUE_OPTIONS;

const isValueOption = (arg: string): arg is ValueOption => arg in VALUE_OPTIONS;

export function parseHookArgv(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): HookArgv | undefined {
  if (argv[0] !== 'hook') return undefined;
  const opts: HookOptions = {};
  const operands: string[] = [];
  for (let i = 1; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (arg === '--help' || arg === '-h') return undefined;
    if (arg === '--') {
      operands.push(...argv.slice(i + 1));
      break;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (isValueOption(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[(i += 1)];
      if (value === undefined) return undefined; // commander says what is missing
      opts[VALUE_OPTIONS[name]] = value;
      continue;
    }
    // A hook never fails on a flag it does not know (a newer settings file).
    if (arg.startsWith('-') && arg.length > 1) continue;
    operands.push(arg);
  }
  const [event, payload] = operands;
  if (event === undefined) return undefined;
  // As commander's .env(): the variable when the flag is not given.
  if (opts.agent === undefined && env.MACS_AGENT !== undefined)
    opts.agent = env.MACS_AGENT;
  if (opts.home === undefined && env.MACS_HOME !== undefined)
    opts.home = env.MACS_HOME;
  if (opts.config === undefined && env.MACS_CONFIG !== undefined)
    opts.config = env.MACS_CONFIG;
  return { event, ...(payload !== undefined ? { payload } : {}), opts };
}
