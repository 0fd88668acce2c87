/**
 * The terminal side of the demo's scripted agents, like a small agent TUI:
 * raw input with bracketed paste, a `❯` prompt that shows what is being
 * typed, a spinner busy line, and submissions on Enter. Output goes
 * straight to stdout (these run as programs in tmux panes).
 */
import { StringDecoder } from 'node:string_decoder';

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
const PROMPT = '\x1b[1m❯\x1b[0m ';
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const SPINNER_MS = 100;

export interface DemoTerminal {
  /** Print lines (each ends the current line); the prompt is redrawn after. */
  println(text?: string): void;
  /** Show a spinner busy line for `ms`, then erase it. */
  busy(label: string, ms: number): Promise<void>;
  /** The next submitted text, or undefined after `timeoutMs`. */
  nextSubmission(timeoutMs?: number): Promise<string | undefined>;
  close(): void;
}

export function createDemoTerminal(
  options: { onInterrupt?: () => void } = {},
): DemoTerminal {
  const out = (text: string) => void process.stdout.write(text);
  const decoder = new StringDecoder('utf8');
  let composer = '';
  let pending = '';
  let inPaste = false;
  let busy = false;
  const queue: string[] = [];
  const waiters: ((text: string) => void)[] = [];

  function drawPrompt(): void {
    if (busy) return;
    const width = Math.max(10, (process.stdout.columns || 80) - 4);
    const shown = [...composer.replace(/\n/g, '⏎')].slice(-width).join('');
    out(`\r\x1b[2K${PROMPT}${shown}`);
  }

  function println(text = ''): void {
    out(`\r\x1b[2K${text.split('\n').join('\r\n')}\r\n`);
    drawPrompt();
  }

  function submit(): void {
    const text = composer;
    composer = '';
    const waiter = waiters.shift();
    if (waiter) waiter(text);
    else queue.push(text);
  }

  // Handle one chunk of input; returns what must wait for the next chunk.
  function parse(buf: string): string {
    let i = 0;
    while (i < buf.length) {
      if (inPaste) {
        const end = buf.indexOf(PASTE_END, i);
        if (end < 0) {
          let keep = 0;
          for (
            let n = Math.min(PASTE_END.length - 1, buf.length - i);
            n > 0;
            n -= 1
          )
            if (buf.endsWith(PASTE_END.slice(0, n))) {
              keep = n;
              break;
            }
          composer += buf.slice(i, buf.length - keep).replace(/\r\n?/g, '\n');
          return buf.slice(buf.length - keep);
        }
        composer += buf.slice(i, end).replace(/\r\n?/g, '\n');
        inPaste = false;
        i = end + PASTE_END.length;
        continue;
      }
      const ch = buf[i] ?? '';
      if (ch === '\x1b') {
        const rest = buf.slice(i);
        if (rest.startsWith(PASTE_START)) {
          inPaste = true;
          i += PASTE_START.length;
          continue;
        }
        if (PASTE_START.startsWith(rest)) return rest;
        if (buf[i + 1] === '[') {
          let j = i + 2;
          while (j < buf.length && !/[@-~]/.test(buf[j] ?? '')) j += 1;
          i = j + 1;
        } else i += 2;
        continue;
      }
      if (ch === '\r' || ch === '\n') submit();
      else if (ch === '\x03') options.onInterrupt?.();
      else if (ch === '\x7f') composer = [...composer].slice(0, -1).join('');
      else if (ch === '\t' || ch >= ' ') composer += ch;
      i += 1;
    }
    return '';
  }

  const onData = (chunk: Buffer) => {
    pending = parse(pending + decoder.write(chunk));
    drawPrompt();
  };
  if (process.stdin.isTTY) process.stdin.setRawMode(true);
  process.stdin.on('data', onData);
  process.stdin.resume();
  out('\x1b[?2004h');

  return {
    println,
    async busy(label, ms) {
      busy = true;
      let frame = 0;
      const draw = () => {
        out(
          `\r\x1b[2K\x1b[33m${SPINNER[frame % SPINNER.length] ?? '*'}\x1b[0m ${label}… (esc to interrupt)`,
        );
        frame += 1;
      };
      draw();
      const timer = setInterval(draw, SPINNER_MS);
      await new Promise((resolve) => setTimeout(resolve, ms));
      clearInterval(timer);
      busy = false;
      out('\r\x1b[2K');
      drawPrompt();
    },
    nextSubmission(timeoutMs) {
      const queued = queue.shift();
      if (queued !== undefined) return Promise.resolve(queued);
      return new Promise((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const waiter = (text: string) => {
          if (timer) clearTimeout(timer);
          resolve(text);
        };
        waiters.push(waiter);
        if (timeoutMs !== undefined) {
          timer = setTimeout(() => {
            const at = waiters.indexOf(waiter);
            if (at >= 0) waiters.splice(at, 1);
            resolve(undefined);
          }, timeoutMs);
        }
      });
    },
    close() {
      out('\x1b[?2004l');
      process.stdin.off('data', onData);
      if (process.stdin.isTTY) process.stdin.setRawMode(false);
      process.stdin.pause();
    },
  };
}

/** The first line of a text, with a count of the lines that follow. */
export function summarizeText(text: string, width = 70): string {
  const lines = text.trim().split('\n');
  const first = lines[0] ?? '';
  const cut = first.length > width ? `${first.slice(0, width - 1)}…` : first;
  return lines.length > 1 ? `${cut}  (+${lines.length - 1} lines)` : cut;
}
