/**
 * Output destinations checked before any work (the CLI's `--plot`, `--report`, `--record` and
 * any other file a command writes): a file destination must not be a folder and its folder must
 * exist and take new files; a folder destination must be a folder or not exist yet, and the
 * nearest existing folder above it must take new folders. "Takes new entries" is tested for real
 * by creating and removing an empty probe folder there (so a read-only mount, a pseudo file
 * system such as /proc — where Node's recursive mkdir never returns — or a missing permission
 * is caught up front, whatever the process's privileges). Every failure is an
 * {@link ArgumentError} naming the flag and the path, so the CLI exits 2 before computing
 * anything.
 *
 * The checked destinations are remembered (per flag) so that a file-system error raised later
 * while writing one of them can still be reported naming its flag ({@link destinationFlagOf}).
 */
import { lstatSync, mkdtempSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve, sep } from 'node:path';
import { temporaryPathFor } from './atomicWrite.js';
import { ArgumentError, ArgumentTypeError } from './errors.js';

/** Bytes a file-name component may have on the common file systems (ext4, xfs, apfs, ntfs). */
const NAME_MAX = 255;

/** What a destination is. */
export type DestinationKind = 'file' | 'folder';

/** One destination of a command: the flag that names it, the path, and what it must be. */
export interface Destination {
  readonly flag: string;
  readonly path: string;
  readonly kind: DestinationKind;
}

const checked = new Map<string, string>();

/** The file system's entry at `path` (links followed), or undefined when there is none. */
export function statOrUndefined(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function errnoCode(e: unknown): string {
  return (e as NodeJS.ErrnoException)?.code ?? 'error';
}

/** Creates and removes an empty folder in `dir`; throws naming `flag` when `dir` takes no new entries. */
function probeWritable(flag: string, path: string, dir: string): void {
  let probe: string;
  try {
    probe = mkdtempSync(`${dir}${dir.endsWith(sep) ? '' : sep}.ordergap-probe-`);
  } catch (e) {
    throw new ArgumentError(flag, path, `cannot create files in ${dir} (${errnoCode(e)})`);
  }
  try {
    rmdirSync(probe);
  } catch {
    // the probe folder is empty and ours; failing to remove it is not the user's problem
  }
}

/**
 * Checks that `path` can be written as a file: a non-empty path that is not a folder, whose
 * folder exists and takes new files. Cost: two stats and one probe folder created and removed.
 * @throws {ArgumentTypeError | ArgumentError} naming `flag` and the path.
 * @example
 * ```ts
 * checkOutputFile('--record', 'runs/record.json'); // throws when runs/ does not exist
 * ```
 */
export function checkOutputFile(flag: string, path: unknown): string {
  if (typeof path !== 'string' || path.length === 0) throw new ArgumentTypeError(flag, path, 'must be a file path');
  if (path.trim() === '') throw new ArgumentError(flag, path, 'is blank; give the path of a file to write');
  if (path.includes('\0')) throw new ArgumentError(flag, path, 'contains a NUL byte, which no file system accepts');
  const full = resolve(path);
  const st = statOrUndefined(full);
  if (st?.isDirectory()) throw new ArgumentError(flag, path, 'is a folder; give the path of a file to write');
  if (st && !st.isFile()) throw new ArgumentError(flag, path, 'exists and is not a regular file');
  const parent = dirname(full);
  const pst = statOrUndefined(parent);
  if (!pst) throw new ArgumentError(flag, path, `its folder ${parent} does not exist`);
  if (!pst.isDirectory()) throw new ArgumentError(flag, path, `${parent} is not a folder`);
  probeWritable(flag, path, parent);
  // the write goes through a temporary file named after the target: create (and remove) one
  const tmp = temporaryPathFor(full);
  try {
    writeFileSync(tmp, '', { flag: 'wx' });
  } catch (e) {
    const code = errnoCode(e);
    throw new ArgumentError(
      flag,
      path,
      code === 'ENAMETOOLONG' ? 'its file name is too long' : `cannot be written in ${parent} (${code})`,
    );
  }
  rmSync(tmp, { force: true });
  checked.set(full, flag);
  return path;
}

/**
 * Checks that `path` can take files as a folder: an existing folder, or a path that does not
 * exist yet whose nearest existing ancestor is a folder that takes new folders (it is created
 * when the files are written). Cost: one stat per missing level and one probe folder.
 * @throws {ArgumentTypeError | ArgumentError} naming `flag` and the path.
 * @example
 * ```ts
 * checkOutputFolder('--plot', 'plots/run1'); // fine when plots/ (or plots/run1) can be created
 * ```
 */
export function checkOutputFolder(flag: string, path: unknown): string {
  if (typeof path !== 'string' || path.length === 0) throw new ArgumentTypeError(flag, path, 'must be a folder path');
  if (path.trim() === '') throw new ArgumentError(flag, path, 'is blank; give the path of a folder');
  if (path.includes('\0')) throw new ArgumentError(flag, path, 'contains a NUL byte, which no file system accepts');
  const full = resolve(path);
  let dir = full;
  let st = statOrUndefined(dir);
  if (st && !st.isDirectory()) throw new ArgumentError(flag, path, 'exists and is not a folder');
  // a link to nothing passes stat as "missing", and then no folder can be made there
  if (!st && isLink(full)) throw new ArgumentError(flag, path, 'is a symbolic link to a path that does not exist');
  for (const part of full.split(sep))
    if (Buffer.byteLength(part) > NAME_MAX - 40)
      throw new ArgumentError(flag, path, `a folder name is too long (${Buffer.byteLength(part)} bytes)`);
  while (!st) {
    const up = dirname(dir);
    if (up === dir) throw new ArgumentError(flag, path, 'no folder above it exists');
    dir = up;
    st = statOrUndefined(dir);
    if (st && !st.isDirectory()) throw new ArgumentError(flag, path, `${dir} is not a folder`);
  }
  probeWritable(flag, path, dir);
  checked.set(full, flag);
  return path;
}

/**
 * Checks every destination of a command before it starts (see {@link checkOutputFile} and
 * {@link checkOutputFolder}); undefined paths (flag not given) are skipped.
 * @throws {ArgumentTypeError | ArgumentError} the first bad destination, naming its flag.
 */
export function checkDestinations(
  destinations: ReadonlyArray<{ flag: string; path: string | undefined; kind: DestinationKind }>,
): void {
  const files = new Map<string, string>();
  for (const d of destinations) {
    if (d.path === undefined) continue;
    if (d.kind === 'file') checkOutputFile(d.flag, d.path);
    else checkOutputFolder(d.flag, d.path);
    // two outputs written to one file: the second would silently replace the first
    const full = resolve(d.path);
    const other = files.get(full);
    if (other !== undefined && d.kind === 'file')
      throw new ArgumentError(d.flag, d.path, `is the file ${other} writes too; give each output its own file`);
    if (d.kind === 'file') files.set(full, d.flag);
  }
}

/**
 * The flag of the checked destination a file-system path belongs to: the destination itself, a
 * file inside a folder destination, or a temporary file next to a file destination
 * (`.name.<pid>.<hex>.tmp`). Undefined for any other path.
 */
export function destinationFlagOf(path: string): string | undefined {
  const full = resolve(path);
  for (const [dest, flag] of checked) {
    if (full === dest || full.startsWith(dest + sep)) return flag;
    if (dirname(full) === dirname(dest) && basename(full).startsWith(`.${basename(dest)}.`)) return flag;
  }
  return undefined;
}

/** Forgets the checked destinations (the CLI calls it at the start of each invocation). */
export function resetDestinations(): void {
  checked.clear();
}
