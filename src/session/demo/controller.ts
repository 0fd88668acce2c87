/**
 * The demo's scripted controller (`macs start --demo`): answers the demo
 * worker's requests by their type, with WORKER INSTRUCTIONS and NOTES.
 *
 *   --via file         (used now) watch inbox/ and write outbox/<id>.txt
 *                      (write, then rename), as the file backend expects;
 *   --via interactive  read the `<<MACS_REQUEST …>>` envelopes the
 *                      interactive backend pastes into this pane and print a
 *                      `<<CONTROLLER_RESPONSE id=…>>` block for each.
 *
 * Which one runs is chosen in demo/config.ts (DEMO_BACKEND).
 *
 *   node dist/session/demo/controller.js --via file --agents worker-1 [--home DIR]
 */
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  answerDemoRequest,
  formatAnswerText,
  formatResponseBlock,
  type DemoAnswer,
} from './script.js';
import { createDemoTerminal, summarizeText } from './demo-terminal.js';

const INBOX_POLL_MS = 150;

const { values } = parseArgs({
  options: {
    via: { type: 'string', default: 'file' },
    agents: { type: 'string', default: 'worker-1' },
    home: { type: 'string', default: process.env.MACS_HOME ?? process.cwd() },
  },
});
const agents = new Set(values.agents.split(',').filter(Boolean));
const inbox = path.join(values.home, 'inbox');
const outbox = path.join(values.home, 'outbox');

const bold = (text: string) => `\x1b[1m${text}\x1b[0m`;
const dim = (text: string) => `\x1b[2m${text}\x1b[0m`;
const clock = () => new Date().toTimeString().slice(0, 8);

const term = createDemoTerminal({
  onInterrupt: () => {
    term.close();
    process.stdout.write('\r\n');
    process.exit(0);
  },
});
process.stdin.on('end', () => process.exit(0));

function show(
  agent: string,
  id: string,
  type: string,
  body: string,
  answer: DemoAnswer,
): void {
  term.println(`${clock()}  ${bold(agent)} asks (${type}) ${dim(id)}`);
  term.println(`          ${summarizeText(body)}`);
  term.println(`          answer: ${answer.instructions}`);
  term.println(
    dim(`          notes (never sent to the worker): ${answer.notes}`),
  );
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** File backend: requests are inbox/<id>.json + .txt; answers go to outbox/<id>.txt. */
async function answerThroughFiles(): Promise<never> {
  term.println(
    dim(
      'answering through the file backend: reading inbox/, writing outbox/<id>.txt',
    ),
  );
  term.println(dim(`waiting for requests from ${[...agents].join(', ')}…`));
  const handled = new Set<string>();
  for (;;) {
    const names = await readdir(inbox).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
      const id = name.slice(0, -'.json'.length);
      if (handled.has(id)) continue;
      let meta: { agent?: string; type?: string };
      let body: string;
      try {
        meta = JSON.parse(
          await readFile(path.join(inbox, name), 'utf8'),
        ) as typeof meta;
        body = await readFile(path.join(inbox, `${id}.txt`), 'utf8');
      } catch {
        continue; // half written or just archived: look again next round
      }
      if (!meta.agent || !agents.has(meta.agent)) continue;
      handled.add(id);
      const target = path.join(outbox, `${id}.txt`);
      if (await exists(target)) continue;
      const type = meta.type ?? 'question';
      const answer = answerDemoRequest({ type, body });
      show(meta.agent, id, type, body, answer);
      const temp = path.join(outbox, `.${id}.txt.${process.pid}.tmp`);
      await writeFile(temp, formatAnswerText(answer), { mode: 0o600 });
      await rename(temp, target);
      term.println(dim(`          wrote outbox/${id}.txt`));
    }
    await new Promise((resolve) => setTimeout(resolve, INBOX_POLL_MS));
  }
}

const ENVELOPE = /<<MACS_REQUEST\b([^<>]*)>>([\s\S]*?)<<MACS_REQUEST_END>>/g;

function attribute(attrs: string, key: string): string | undefined {
  return new RegExp(`(?:^|\\s)${key}=([A-Za-z0-9._:-]+)`).exec(attrs)?.[1];
}

/** Interactive backend: envelopes arrive as pasted input; answers are printed. */
async function answerInPane(): Promise<never> {
  term.println(
    dim(
      'answering in this pane: each request is pasted in, the answer is printed',
    ),
  );
  for (;;) {
    const text = (await term.nextSubmission()) ?? '';
    for (const match of text.matchAll(ENVELOPE)) {
      const attrs = match[1] ?? '';
      const id = attribute(attrs, 'id');
      if (!id) continue;
      const agent = attribute(attrs, 'agent') ?? '?';
      const type = attribute(attrs, 'type') ?? 'question';
      const body = (match[2] ?? '').trim();
      const answer = answerDemoRequest({ type, body });
      show(agent, id, type, body, answer);
      term.println(formatResponseBlock(id, answer));
    }
  }
}

term.println(
  `${bold('macs demo controller')}: answers worker requests by a script (no AI)`,
);
await (values.via === 'interactive' ? answerInPane() : answerThroughFiles());
