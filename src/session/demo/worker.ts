/**
 * The demo's scripted worker (`macs start --demo`): a plain node program
 * that behaves like a coding agent in its pane. It waits for its first
 * message (the worker protocol), then works through a small task: a busy
 * line, then a request block; it waits at its prompt for the answer, says
 * what it does with it, and goes on. At the end it prints what happened and
 * what to try next, and writes a result file for `macs start`.
 *
 *   node dist/session/demo/worker.js --agent worker-1 --run ab12 --result FILE [--home DIR]
 */
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { makeDirs } from '../../home/make-dirs.js';
import {
  DEMO_STEPS,
  DEMO_TASK,
  actOnAnswer,
  demoRequestId,
  formatRequestBlock,
  type DemoResult,
} from './script.js';
import { createDemoTerminal, summarizeText } from './demo-terminal.js';

/** How long the worker waits for its first message before starting anyway. */
const FIRST_MESSAGE_WAIT_MS = 15_000;
const WRAP_UP_MS = 600;

const { values } = parseArgs({
  options: {
    agent: { type: 'string', default: process.env.MACS_AGENT ?? 'worker-1' },
    run: { type: 'string', default: 'demo' },
    result: { type: 'string' },
    home: { type: 'string', default: process.env.MACS_HOME ?? process.cwd() },
  },
});
const agent = values.agent;
const runId = values.run;
const home = values.home;

const bold = (text: string) => `\x1b[1m${text}\x1b[0m`;
const dim = (text: string) => `\x1b[2m${text}\x1b[0m`;
const isProtocol = (text: string) =>
  text.includes('CONTROLLER_REQUEST') && /working under macs/i.test(text);

const term = createDemoTerminal({
  onInterrupt: () => {
    term.close();
    process.stdout.write('\r\n');
    process.exit(0);
  },
});
process.stdin.on('end', () => process.exit(0));

async function writeResult(result: DemoResult): Promise<void> {
  if (!values.result) return;
  await makeDirs(path.dirname(values.result), 0o700);
  const temp = `${values.result}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(result, null, 2)}\n`, {
    mode: 0o600,
  });
  await rename(temp, values.result);
}

async function waitForAnswer(id: string): Promise<string> {
  for (;;) {
    const text = (await term.nextSubmission()) ?? '';
    if (!text.trim()) continue;
    if (isProtocol(text)) {
      term.println(
        dim(
          `(that was the worker protocol; still waiting for the answer to ${id})`,
        ),
      );
      continue;
    }
    return text;
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  term.println(
    `${bold('macs demo worker')}: a scripted coding agent (no AI) named ${agent}`,
  );
  term.println(`Task: ${DEMO_TASK}.`);
  term.println(
    dim(
      'Waiting for my first message: macs types the worker protocol in here…',
    ),
  );

  const first = await term.nextSubmission(FIRST_MESSAGE_WAIT_MS);
  const protocolReceived = first !== undefined && isProtocol(first);
  if (first === undefined) {
    term.println('(no first message came; starting anyway)');
  } else {
    term.println(`> ${summarizeText(first)}`);
    term.println(
      protocolReceived
        ? '✓ learned the protocol: I ask the controller with CONTROLLER_REQUEST blocks and wait for its answer'
        : '(that was not the protocol; starting anyway)',
    );
  }

  const requests: DemoResult['requests'] = [];
  for (const step of DEMO_STEPS) {
    await term.busy(step.work, step.workMs);
    for (const line of step.progress) term.println(`✓ ${line}`);
    const id = demoRequestId(runId, step.key);
    term.println('');
    term.println(formatRequestBlock(id, step.type, step.body));
    term.println(
      dim(`(asked ${step.type} ${id}; waiting at my prompt for the answer)`),
    );
    const answer = await waitForAnswer(id);
    term.println(`> ${summarizeText(answer)}`);
    if (/^\s*NOTES:/im.test(answer))
      term.println(
        '! this answer contains NOTES, which macs should have kept from me',
      );
    const did = actOnAnswer(step.type, answer);
    for (const line of did) term.println(`→ ${line}`);
    requests.push({
      id,
      type: step.type,
      asked: step.body.split('\n', 1)[0] ?? '',
      answer: answer.trim(),
      did,
    });
  }
  await term.busy('Wrapping up', WRAP_UP_MS);

  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  await writeResult({
    runId,
    agent,
    startedAt: new Date(started).toISOString(),
    finishedAt: new Date().toISOString(),
    protocolReceived,
    requests,
  });
  const types = requests.map((r) => r.type).join(', ');
  term.println('');
  term.println(bold(`══ demo finished in ${seconds} s ══`));
  term.println('What happened:');
  term.println(
    `  1. I asked ${requests.length} requests (${types}) as request blocks in this pane.`,
  );
  term.println(
    '  2. The bridge (window "bridge") read them from the pane and wrote each to inbox/.',
  );
  term.println(
    '  3. The controller (the other pane) answered in outbox/: WORKER INSTRUCTIONS and NOTES.',
  );
  term.println(
    '  4. The bridge waited until I was idle and typed the instructions in; the NOTES stayed out.',
  );
  term.println(`Try next, in a shell in ${home}:`);
  term.println(`  macs events --agent ${agent}     every step, with times`);
  term.println(
    '  ls archive/*/                    each request and answer, archived',
  );
  term.println(
    '  tmux prefix, then n              the bridge and status windows',
  );
  term.println('  macs stop                        end the demo');
  term.println('  macs start --worker "codex"      the same with a real agent');
  term.println(dim('(the demo is over; this worker only follows its script)'));
  for (;;) {
    await term.nextSubmission();
    term.println(dim('(the demo is over; end it with: macs stop)'));
  }
}

await main();
