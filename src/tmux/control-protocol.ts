/**
 * Reading a tmux control-mode client's output (see "CONTROL MODE" in
 * tmux(1)): the replies to commands come as blocks, `%begin` … `%end` or
 * `%error`, with notifications (`%window-renamed` …) between them. Pure: the
 * channel in control.ts feeds it lines read from the client.
 */

/** An output block: `%begin` … `%end` (ok) or `%error`. */
export interface Block {
  ok: boolean;
  lines: string[];
  /** `1` for a command the client sent, `0` for tmux's own (attach, hooks). */
  fromClient: boolean;
}

const BEGIN = /^%begin (\d+) (\d+) (\d+)$/;
const END = /^%(end|error) (\d+) (\d+) (\d+)$/;

/**
 * The line-level protocol, without I/O: feed it lines, it returns finished
 * blocks and reports lines that cannot belong to the protocol (anything but
 * a notification outside a block), which mean the stream is out of step.
 */
export function createBlockParser(): {
  push(line: string): { block?: Block; stray?: string; exit?: boolean };
} {
  let current: { number: string; flags: string; lines: string[] } | undefined;
  return {
    push(line) {
      if (current) {
        const end = END.exec(line);
        if (end && end[3] === current.number) {
          const block = {
            ok: end[1] === 'end',
            lines: current.lines,
            fromClient: current.flags !== '0',
          };
          current = undefined;
          return { block };
        }
        current.lines.push(line);
        return {};
      }
      const begin = BEGIN.exec(line);
      if (begin) {
        current = { number: begin[2] ?? '', flags: begin[3] ?? '', lines: [] };
        return {};
      }
      if (line === '%exit' || line.startsWith('%exit ')) return { exit: true };
      // A notification (%window-renamed …) is not ours; anything else is.
      if (line.startsWith('%') && !END.test(line)) return {};
      return { stray: line };
    },
  };
}
