/**
 * The context packet (SPEC §3): what a controller gets with each request,
 * and the text it is given as. Pure: the I/O that gathers the facts lives in
 * `backends/context-collector.ts`.
 */
import { escapeInvisible, hasInvisible } from './sanitize.js';

/** One of the worker's earlier requests, with the answer it got. */
export interface ContextRecent {
  id: string;
  type: string;
  stage: string;
  detectedAt: string;
  /** The first line of the request. */
  question: string;
  /** The instructions the worker was sent (cut), when there were any. */
  answer?: string;
}

/** Everything a controller is told about one request. Built once, archived. */
export interface ContextPacket {
  version: 1;
  requestId: string;
  agent: string;
  preset: string;
  /** The worker pane's working folder (`#{pane_current_path}`). */
  cwd?: string;
  /** The git branch of that folder, when it is a repository. */
  branch?: string;
  type: string;
  priority: string;
  attributes: Record<string, string>;
  detectedAt: string;
  body: string;
  /** The last lines of the worker's screen, cleaned. */
  screen: string[];
  recent: ContextRecent[];
  builtAt: string;
  /**
   * The body or screen held characters a person would not see (bidi
   * controls, zero-width, tag characters): shown escaped, `<U+202E>`.
   */
  invisible?: true;
  /** The output the request came in hid text from the person (concealed). */
  concealed?: true;
  /**
   * Delivery to the agent was paused when the packet was built: by its
   * budget (`by: "budget"`, with whose budget and the percent reached) or
   * by a person. An answer is kept and typed only once it is resumed.
   */
  paused?: { by: string; scope?: 'agent' | 'session'; percent?: number };
}

/** How many earlier requests a packet carries. */
export const CONTEXT_RECENT_MAX = 5;
/** Earlier answers are cut to this many characters. */
export const CONTEXT_ANSWER_MAX_CHARS = 500;

/** What a packet is built from: its facts, plus the raw screen and history. */
export interface BuildContextInput extends Omit<
  ContextPacket,
  'version' | 'screen' | 'recent' | 'builtAt' | 'invisible'
> {
  /** Cleaned screen lines, oldest first (any number; the last `contextLines` are kept). */
  screenLines: readonly string[];
  contextLines: number;
  /** Earlier requests, newest first. */
  recent: readonly ContextRecent[];
  now: Date;
}

/** Assemble a packet: trailing blank screen lines dropped, the tail kept. */
export function buildContextPacket(input: BuildContextInput): ContextPacket {
  const lines = [...input.screenLines];
  while (lines.length > 0 && lines[lines.length - 1]?.trim() === '')
    lines.pop();
  const screen = lines.slice(-input.contextLines);
  const invisible =
    hasInvisible(input.body) || screen.some((line) => hasInvisible(line));
  return {
    version: 1,
    requestId: input.requestId,
    agent: input.agent,
    preset: input.preset,
    ...(input.cwd ? { cwd: input.cwd } : {}),
    ...(input.branch ? { branch: input.branch } : {}),
    type: input.type,
    priority: input.priority,
    attributes: { ...input.attributes },
    detectedAt: input.detectedAt,
    // What the answerer reads is what a person sees, invisible text shown.
    body: escapeInvisible(input.body),
    screen: screen.map(escapeInvisible),
    recent: input.recent
      .filter((r) => r.id !== input.requestId)
      .slice(0, CONTEXT_RECENT_MAX)
      .map((r) => ({
        ...r,
        question: escapeInvisible(r.question),
        ...(r.answer === undefined
          ? {}
          : {
              answer: escapeInvisible(
                r.answer.slice(0, CONTEXT_ANSWER_MAX_CHARS),
              ),
            }),
      })),
    builtAt: input.now.toISOString(),
    ...(invisible ? { invisible } : {}),
    ...(input.concealed ? { concealed: true } : {}),
    ...(input.paused ? { paused: { ...input.paused } } : {}),
  };
}

// `<<CONTROLLER_…` and `<<MACS_…` markers in text that came from a worker.
const MARKER = /<<(?=CONTROLLER_|MACS_)/g;

/**
 * Break protocol markers in worker-supplied text (`<<X` becomes `< <X`), so
 * that a body quoting a response block can never be read back as the
 * controller's answer, nor a quoted envelope as a request. Only those two
 * marker families change; every other byte is kept.
 */
export function defangMarkers(text: string): string {
  return text.replace(MARKER, '< <');
}

function fenceFor(lines: readonly string[]): string {
  let longest = 0;
  for (const line of lines) {
    for (const run of line.match(/`+/g) ?? [])
      longest = Math.max(longest, run.length);
  }
  return '`'.repeat(Math.max(3, longest + 1));
}

/** The `paused:` line of a packet: why, and what becomes of an answer. */
function describePause(packet: ContextPacket): string {
  const pause = packet.paused;
  const why =
    pause?.by === 'budget'
      ? `by ${pause.scope === 'session' ? "the session's" : 'its'} budget${pause.percent === undefined ? '' : ` (${pause.percent}%)`}`
      : 'by a person';
  return `yes, ${why}: an answer is kept and typed into ${packet.agent} only once a person resumes it (macs resume ${packet.agent})`;
}

/**
 * The packet as text for a controller. Worker-supplied parts (body, screen,
 * earlier questions and answers) pass through `defangMarkers`.
 */
export function formatContextPacket(packet: ContextPacket): string {
  const out: string[] = [];
  const attributes = Object.entries(packet.attributes)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  out.push(`# Request ${packet.requestId} from ${packet.agent}`);
  out.push('');
  out.push(`request id: ${packet.requestId}`);
  out.push(`agent: ${packet.agent} (preset ${packet.preset})`);
  out.push(`type: ${packet.type}`);
  out.push(`priority: ${packet.priority}`);
  if (attributes) out.push(`attributes: ${attributes}`);
  out.push(`asked at: ${packet.detectedAt}`);
  out.push(`folder: ${packet.cwd ?? 'unknown'}`);
  out.push(`git branch: ${packet.branch ?? 'none'}`);
  if (packet.paused) out.push(`paused: ${describePause(packet)}`);
  out.push('');
  out.push('## The request');
  out.push('');
  if (packet.invisible)
    out.push(
      'Note: it holds characters a person does not see; they are shown as <U+…>.',
      '',
    );
  if (packet.concealed)
    out.push(
      'Warning: the worker hid text on its screen (concealed) when it asked: a person watching did not see all of what follows.',
      '',
    );
  out.push(defangMarkers(packet.body));
  out.push('');
  out.push(`## Earlier requests from ${packet.agent} (newest first)`);
  out.push('');
  if (packet.recent.length === 0) out.push('none');
  for (const r of packet.recent) {
    out.push(
      `- ${r.id} (${r.type}, ${r.stage}, ${r.detectedAt}): ${defangMarkers(r.question)}`,
    );
    if (r.answer !== undefined) {
      const [first = '', ...rest] = defangMarkers(r.answer).split('\n');
      out.push(`  answer: ${first}`);
      for (const line of rest) out.push(`  ${line}`);
    }
  }
  out.push('');
  out.push(
    `## The last ${packet.screen.length} lines of ${packet.agent}'s screen`,
  );
  out.push('');
  const screen = packet.screen.map(defangMarkers);
  const fence = fenceFor(screen);
  out.push(fence, ...screen, fence);
  out.push('');
  out.push(
    `Answer with one CONTROLLER_RESPONSE block whose id is ${packet.requestId}.`,
  );
  return out.join('\n');
}

/**
 * What an exec command reads: the controller prompt (when there is one), a
 * rule, then the packet.
 */
export function formatExecInput(
  packet: ContextPacket,
  prompt: string | undefined,
): string {
  const text = formatContextPacket(packet);
  const head = prompt?.trim();
  return `${head ? `${head}\n\n---\n\n` : ''}${text}\n`;
}
