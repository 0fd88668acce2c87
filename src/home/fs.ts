import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
  type Stats,
} from 'node:fs';
import {
  chmod,
  link,
  lstat,
  mkdir,
  open,
  rename,
  rm,
  stat,
} from 'node:fs/promises';
import path from 'node:path';
import { MacsError } from '../errors.js';
import { makeDirs } from './make-dirs.js';

/** Folders are private to the user (SPEC §4). */
export const DIR_MODE = 0o700;
/** Files are private to the user (SPEC §4). */
export const FILE_MODE = 0o600;

/**
 * A path in the home that another user could use to redirect macs's writes
 * (SPEC §9): a link where macs keeps a folder or file, or a folder or file
 * another user owns. Exit 2, naming the path.
 */
export class UnsafePathError extends MacsError {
  readonly path: string;
  constructor(file: string, why: string) {
    super(`${file} ${why}; macs does not use it`, {
      exitCode: 2,
      hint: 'remove or fix it (macs makes its folders 0700 and its files 0600, owned by you); to accept a home shared with other users, pass --allow-shared-home (MACS_ALLOW_SHARED_HOME=1)',
    });
    this.name = 'UnsafePathError';
    this.path = file;
  }
}

/**
 * How strict the home's ownership checks are. `--allow-shared-home` turns
 * "owned by another user" and "writable by others" into warnings (a link
 * where macs keeps its files is refused either way: it redirects writes).
 */
export const homePolicy: {
  allowShared: boolean;
  warn: (message: string) => void;
} = { allowShared: false, warn: () => undefined };

const myUid = (): number | undefined => process.getuid?.();

/**
 * Why a folder or file in the home is unsafe, or undefined. A link is never
 * used; another user's, or one others may write to, only with
 * `allowShared`.
 */
export function unsafeReason(
  info: Pick<Stats, 'isSymbolicLink' | 'uid' | 'mode'>,
  options: { sharedOk?: boolean } = {},
): { why: string; shared: boolean } | undefined {
  if (info.isSymbolicLink())
    return { why: 'is a symbolic link', shared: false };
  const uid = myUid();
  if (uid !== undefined && info.uid !== uid)
    return {
      why: `is owned by another user (uid ${info.uid})`,
      shared: true,
    };
  if (!options.sharedOk && (info.mode & 0o022) !== 0)
    return {
      why: `can be written by ${info.mode & 0o002 ? 'every user' : 'its group'} (mode ${(info.mode & 0o777).toString(8)})`,
      shared: true,
    };
  return undefined;
}

/** Throw (or, for a shared-home problem allowed, warn) when a path is unsafe. */
export function assertSafe(
  file: string,
  info: Pick<Stats, 'isSymbolicLink' | 'uid' | 'mode'>,
  options: { sharedOk?: boolean } = {},
): void {
  const problem = unsafeReason(info, options);
  if (!problem) return;
  if (problem.shared && homePolicy.allowShared) {
    homePolicy.warn(`${file} ${problem.why} (allowed by --allow-shared-home)`);
    return;
  }
  throw new UnsafePathError(file, problem.why);
}

/**
 * Create a folder (and parents) with mode 0700, or check an existing one:
 * never a link, never another user's; then tighten it to 0700 (so a folder
 * that others could write to before holds nothing of theirs from now on).
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await makeDirs(dir, DIR_MODE);
  let info = await lstat(dir);
  if ((info.isSymbolicLink() || !info.isDirectory()) && healSync(dir)) {
    await mkdir(dir, { mode: DIR_MODE });
    info = await lstat(dir);
  }
  // The tightening below fixes the mode; a link or another owner it cannot.
  assertSafe(dir, info, { sharedOk: true });
  if (!info.isDirectory()) throw new UnsafePathError(dir, 'is not a folder');
  if ((info.mode & 0o777) !== DIR_MODE) await chmod(dir, DIR_MODE);
}

/**
 * Something that is not what macs keeps at `file` (a link, a second name,
 * not a regular file or folder) inside one of macs's own private folders
 * (ours, 0700): only this user could have put it there, before the folder
 * was made private or on purpose. It is removed (the link itself, never
 * what it points at) and reported, and macs makes its own in its place.
 * Anywhere else it is refused. Returns true when it was removed.
 */
function healSync(file: string): boolean {
  let parent: Stats;
  try {
    parent = lstatSync(path.dirname(file));
  } catch {
    return false;
  }
  const uid = myUid();
  const ours =
    parent.isDirectory() &&
    (uid === undefined || parent.uid === uid) &&
    (parent.mode & 0o077) === 0;
  if (!ours) return false;
  rmSync(file, { force: true, recursive: false });
  homePolicy.warn(
    `${file} was a link or not macs's own file; removed (never followed) and made anew`,
  );
  return true;
}

/** O_NOFOLLOW where the platform has it (everywhere macs runs). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Append to a runtime file (an event log) without following a link: opened
 * with O_NOFOLLOW, checked on the open descriptor (a regular file of ours
 * with one name), one write(2), closed. Synchronous: it sits on the
 * detection path and takes microseconds.
 */
export function appendPrivateSync(file: string, data: string): void {
  const fd = openPrivateSync(file, constants.O_WRONLY | constants.O_APPEND);
  try {
    writeSync(fd, data);
  } finally {
    closeSync(fd);
  }
}

/**
 * Open (creating it 0600 when missing) a runtime file without following a
 * link, and check the open descriptor: a regular file, ours, with one name.
 * A link in its place is an UnsafePathError; so is a second name for
 * another file.
 */
export function openPrivateSync(
  file: string,
  flags: number,
  healed = false,
): number {
  let fd: number;
  try {
    fd = openSync(file, flags | constants.O_CREAT | NOFOLLOW, FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOOP') throw error;
    if (!healed && healSync(file)) return openPrivateSync(file, flags, true);
    throw new UnsafePathError(file, 'is a symbolic link');
  }
  const info = fstatSync(fd);
  const problem = !info.isFile()
    ? 'is not a regular file'
    : info.nlink > 1
      ? 'has a second name (a hard link)'
      : undefined;
  if (problem) {
    closeSync(fd);
    if (!healed && healSync(file)) return openPrivateSync(file, flags, true);
    throw new UnsafePathError(file, problem);
  }
  try {
    assertSafe(file, info, { sharedOk: true });
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * Make sure a runtime file is a regular file of ours before something that
 * follows links (a shell's `>>`, in tmux's pipe-pane) writes to it. A link
 * or second name left in its place, in a folder only we can write to, is
 * removed and the file made anew.
 */
export function ensurePrivateFileSync(file: string): void {
  closeSync(openPrivateSync(file, constants.O_WRONLY | constants.O_APPEND));
}

/** Write a file that must not exist yet (a temp file), private to the user. */
async function writeNewFile(file: string, data: string): Promise<void> {
  const handle = await open(file, 'wx', FILE_MODE);
  try {
    await handle.writeFile(data, 'utf8');
  } finally {
    await handle.close();
  }
}

/** A hidden temp file next to `file`, unique to this process and call. */
function tempPathFor(file: string): string {
  return path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
}

/**
 * Write a file atomically: a temp file in the same folder (mode 0600), then
 * a rename over the target. Readers see the old or the new file, never half
 * of one, and a killed process leaves no torn file. (No fsync: the threat
 * model is a crashed or killed process, not power loss; see
 * docs/reliability.md.)
 */
export async function writeFileAtomic(
  file: string,
  data: string,
): Promise<void> {
  const temp = tempPathFor(file);
  if (data.length <= SYNC_WRITE_MAX_CHARS) {
    // Small files (state, inbox, archive entries) are written at once: four
    // calls that take microseconds, where the same calls through the thread
    // pool each wait their turn. These writes sit on the detection path.
    writeSmallAtomic(temp, file, data);
    return;
  }
  await writeNewFile(temp, data);
  try {
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Up to this many characters are written synchronously. */
const SYNC_WRITE_MAX_CHARS = 256 * 1024;

function writeSmallAtomic(temp: string, file: string, data: string): void {
  const fd = openSync(temp, 'wx', FILE_MODE);
  try {
    writeFileSync(fd, data, 'utf8');
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

export async function fileExists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/** Create inbox/, outbox/, archive/ and .macs/ (0700) under a home. */
export async function ensureHomeDirs(paths: {
  inbox: string;
  outbox: string;
  archive: string;
  runtime: string;
}): Promise<void> {
  for (const dir of [paths.runtime, paths.inbox, paths.outbox, paths.archive])
    await ensurePrivateDir(dir);
}

/**
 * Create a file exclusively with its whole content: the content goes to a
 * temp file first, which is then hard-linked to the target. `link(2)` fails
 * with EEXIST when the target exists, exactly like `open(O_CREAT|O_EXCL)`,
 * but a reader never sees the file half-written. Returns false when the
 * target already existed.
 */
export async function createExclusive(
  file: string,
  data: string,
): Promise<boolean> {
  await ensurePrivateDir(path.dirname(file));
  const temp = tempPathFor(file);
  await writeNewFile(temp, data);
  try {
    await link(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temp, { force: true });
  }
}
