/**
 * The only module that writes to the terminal. Commands print through an
 * Output so tests can capture what a user would see.
 */
export interface Output {
  out: (line: string) => void;
  err: (line: string) => void;
  json: (value: unknown) => void;
  /** Raw writes (commander's help text). */
  writeOut: (text: string) => void;
  writeErr: (text: string) => void;
}

export function createOutput(
  stdout: NodeJS.WritableStream = process.stdout,
  stderr: NodeJS.WritableStream = process.stderr,
): Output {
  return {
    out: (line) => void stdout.write(`${line}\n`),
    err: (line) => void stderr.write(`${line}\n`),
    json: (value) => void stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    writeOut: (text) => void stdout.write(text),
    writeErr: (text) => void stderr.write(text),
  };
}

/** An Output that records lines (tests). */
export function createMemoryOutput(): Output & {
  stdout: string[];
  stderr: string[];
} {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (line) => void stdout.push(line),
    err: (line) => void stderr.push(line),
    json: (value) => void stdout.push(JSON.stringify(value, null, 2)),
    writeOut: (text) => void stdout.push(text),
    writeErr: (text) => void stderr.push(text),
  };
}
