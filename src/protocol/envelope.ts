/**
 * The interactive controller's side of the protocol (SPEC §3): the envelope
 * pasted into its pane, and finding its answer on its rendered screen; plus
 * picking the answer out of an exec command's output. Pure.
 */
import { cleanBody } from './clean-body.js';
import { formatContextPacket, type ContextPacket } from './context-packet.js';
import {
  findResponseBlocks,
  RESPONSE_END,
  RESPONSE_START,
  type ResponseBlock,
} from './response.js';

export const ENVELOPE_START = '<<MACS_REQUEST';
export const ENVELOPE_END = '<<MACS_REQUEST_END>>';

/**
 * The envelope for one request:
 * `<<MACS_REQUEST id=… agent=… type=…>>`, the packet, `<<MACS_REQUEST_END>>`.
 * Attribute values are ids, agent names and request types, which are all
 * limited to `[A-Za-z0-9._:-]` before they get here.
 */
export function formatEnvelope(packet: ContextPacket): string {
  return [
    `${ENVELOPE_START} id=${packet.requestId} agent=${packet.agent} type=${packet.type}>>`,
    formatContextPacket(packet),
    ENVELOPE_END,
  ].join('\n');
}

/** A response block rebuilt for the supervisor (which splits it and archives it). */
export function formatResponseBlock(id: string, content: string): string {
  return `${RESPONSE_START} id=${id}>>\n${content}\n${RESPONSE_END}\n`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Blocks with this id on a screen (taken before pasting, as a baseline). */
export function countResponseBlocks(screen: string, id: string): number {
  return findResponseBlocks(screen).filter((b) => b.id === id).length;
}

export interface ControllerScan {
  /** The answer for the request, rebuilt as a clean response block. */
  answer?: string;
  /** Ids of complete response blocks for other requests, seen after the envelope. */
  otherIds: string[];
  /** Whether the echo of the envelope was found on screen. */
  anchored: boolean;
}

/**
 * Look for the answer to request `id` on the controller's screen (tmux's
 * rendering, wrapped lines joined).
 *
 * - When the echo of the envelope is on screen, only what follows its last
 *   `<<MACS_REQUEST_END>>` counts; the echo itself never does (and it holds
 *   no working response marker anyway: worker text is defanged).
 * - When the controller shows no echo (agents that fold a paste into
 *   "[Pasted text …]"), the first `baseline` blocks with this id, which were
 *   on screen before the envelope was pasted, are skipped.
 *
 * A block with another id is not an answer (its id is reported, so it can
 * be logged); a block with no id is ignored. The answer's lines are cleaned
 * of UI decoration (borders, bullets, a common indent).
 */
export function scanControllerScreen(
  screen: string,
  id: string,
  baseline: number,
): ControllerScan {
  const lines = screen.replace(/\r\n/g, '\n').split('\n');
  const start = new RegExp(
    `${ENVELOPE_START} id=${escapeRegExp(id)}(?=[\\s>])`,
  );
  let startAt = -1;
  lines.forEach((line, i) => {
    if (start.test(line)) startAt = i;
  });
  let from = 0;
  let skip = baseline;
  if (startAt >= 0) {
    const endAt = lines.findIndex(
      (line, i) => i > startAt && line.includes(ENVELOPE_END),
    );
    from = endAt >= 0 ? endAt + 1 : startAt + 1;
    skip = 0;
  }
  const blocks: ResponseBlock[] = findResponseBlocks(
    lines.slice(from).join('\n'),
  );
  const otherIds: string[] = [];
  for (const block of blocks) {
    if (block.id === undefined) continue;
    if (block.id !== id) {
      otherIds.push(block.id);
      continue;
    }
    if (skip > 0) {
      skip -= 1;
      continue;
    }
    const content = cleanBody(block.content.split('\n'));
    return {
      answer: formatResponseBlock(id, content),
      otherIds,
      anchored: startAt >= 0,
    };
  }
  return { otherIds, anchored: startAt >= 0 };
}

export interface ExecAnswer {
  /** What the supervisor gets: a rebuilt block, or the whole output. */
  text: string;
  hasMarkers: boolean;
  /** The id of the block taken when it was not the request's. */
  otherId?: string;
}

/**
 * The answer in an exec command's output: the response block for this
 * request, else one without an id, else the first block (its id is
 * reported); with no block at all, the whole output (all instructions unless
 * it has headers). Undefined when the output is blank.
 */
export function pickExecAnswer(
  output: string,
  id: string,
): ExecAnswer | undefined {
  if (!output.trim()) return undefined;
  const blocks = findResponseBlocks(output);
  const block =
    blocks.find((b) => b.id === id) ??
    blocks.find((b) => b.id === undefined) ??
    blocks[0];
  if (block === undefined) return { text: output, hasMarkers: false };
  return {
    text: formatResponseBlock(id, block.content),
    hasMarkers: true,
    ...(block.id !== undefined && block.id !== id ? { otherId: block.id } : {}),
  };
}
