/**
 * An appeal (docs/hooks.md#appeals): a worker whose tool call a deny rule
 * refused asks the controller with a `type=appeal` request, naming the call
 * (`call=<fingerprint>`, as the refusal told it; else its latest denial).
 * The bridge adds what the controller needs to judge it: the denied call
 * (from `.macs/denials/<agent>.json`) and the recent transcript of the
 * agent's conversation. An answer whose first word overturns the denial
 * lets that very call through once (answers/answers.ts grants it).
 */
import { open } from 'node:fs/promises';
import path from 'node:path';
import type { HomePaths } from '../../home/paths.js';
import { readDenials, type DenialRecord } from '../../state/denials.js';

/** How much of the transcript's end is read, and how many entries shown. */
const TRANSCRIPT_TAIL_BYTES = 256 * 1024;
const TRANSCRIPT_ENTRIES = 12;
const ENTRY_CHARS = 400;

/** Pure: the denial an appeal is about: the one it names, else the newest. */
export function appealedDenial(
  denials: readonly DenialRecord[],
  call: string | undefined,
): DenialRecord | undefined {
  const wanted = call?.trim().toLowerCase();
  if (wanted) {
    for (let i = denials.length - 1; i >= 0; i -= 1) {
      const d = denials[i];
      if (d && d.fingerprint.startsWith(wanted)) return d;
    }
    return undefined;
  }
  return denials[denials.length - 1];
}

function clipLine(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > ENTRY_CHARS ? `${one.slice(0, ENTRY_CHARS)}…` : one;
}

/** Pure: one transcript line (Claude Code's JSONL) as a line for people. */
export function transcriptEntry(line: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const entry = value as { type?: unknown; message?: unknown };
  if (entry.type !== 'user' && entry.type !== 'assistant') return undefined;
  const message = entry.message as { content?: unknown } | undefined;
  const content = message?.content;
  const parts: string[] = [];
  if (typeof content === 'string') parts.push(content);
  else if (Array.isArray(content)) {
    for (const part of content as Record<string, unknown>[]) {
      if (part.type === 'text' && typeof part.text === 'string')
        parts.push(part.text);
      else if (part.type === 'tool_use')
        parts.push(`[tool ${String(part.name)}] ${JSON.stringify(part.input)}`);
      else if (part.type === 'tool_result') {
        const c = part.content;
        const text =
          typeof c === 'string'
            ? c
            : Array.isArray(c)
              ? (c as Record<string, unknown>[])
                  .map((x) => (typeof x.text === 'string' ? x.text : ''))
                  .join(' ')
              : '';
        parts.push(`[result] ${text}`);
      }
    }
  }
  const text = clipLine(parts.join(' '));
  return text ? `${entry.type}: ${text}` : undefined;
}

/** The last entries of a Claude Code transcript; none when unreadable. */
export async function transcriptTail(file: string): Promise<string[]> {
  if (!path.isAbsolute(file) || !file.endsWith('.jsonl')) return [];
  let handle;
  try {
    handle = await open(file, 'r');
    const { size } = await handle.stat();
    const start = Math.max(0, size - TRANSCRIPT_TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const lines = buffer.toString('utf8').split('\n');
    if (start > 0) lines.shift(); // a partial first line
    return lines
      .map(transcriptEntry)
      .filter((e): e is string => e !== undefined)
      .slice(-TRANSCRIPT_ENTRIES);
  } catch {
    return [];
  } finally {
    await handle?.close();
  }
}

/** What an appeal adds to its request: attributes and a section of text. */
export interface AppealDetails {
  attributes: Record<string, string>;
  section: string;
}

/** Pure: the section the controller reads after the worker's reasons. */
export function formatAppeal(
  agent: string,
  denial: DenialRecord | undefined,
  transcript: readonly string[],
): string {
  if (!denial)
    return `(macs: no call of ${agent} refused by the rules is on record; there is nothing to let through. Answer it as a question.)`;
  return [
    '--- added by macs ---',
    `The denied call (${agent} appeals against this):`,
    `  tool: ${denial.tool}`,
    `  ${denial.tool === 'Bash' ? 'command' : 'target'}: ${denial.subject}`,
    `  rule: ${denial.rule}`,
    `  denied at: ${denial.at}`,
    `  call: ${denial.fingerprint}`,
    ...(transcript.length > 0
      ? [
          '',
          `The recent transcript of ${agent}:`,
          ...transcript.map((t) => `  ${t}`),
        ]
      : []),
    '',
    `Answer with "overturn" as the first word to let exactly this call through once, or "uphold" to keep the denial; the rest of your answer is typed into ${agent} as the reason.`,
  ].join('\n');
}

/** The details of an appeal from `agent`, naming `call` (or not). */
export async function appealDetails(
  paths: HomePaths,
  agent: string,
  call: string | undefined,
): Promise<AppealDetails> {
  const denial = appealedDenial(await readDenials(paths, agent), call);
  const transcript = denial?.transcript
    ? await transcriptTail(denial.transcript)
    : [];
  return {
    attributes: denial
      ? { call: denial.fingerprint, tool: denial.tool, rule: denial.rule }
      : {},
    section: formatAppeal(agent, denial, transcript),
  };
}
