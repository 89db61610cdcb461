/**
 * Atomic file writes, the one implementation every writer in the package uses (agent state,
 * run records, plots, HTML reports). The data goes to a fresh temporary file in the target's
 * directory (created exclusively, flag 'wx'), which is then renamed over the target; rename
 * within one file system is atomic on POSIX, so a reader sees either the previous file or the
 * whole new one — never a half-written file. On any failure the temporary file is removed and
 * the target is untouched. A process killed mid-write (SIGKILL, power loss) cannot clean up:
 * its temporary file is removed by the next write to the same target
 * ({@link removeStaleTemporaries}), once no process with the pid in its name is alive.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** File operations used by {@link writeFileAtomic} (replaceable in tests to simulate crashes). */
export interface AtomicWriteIo {
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

/** The real file system. */
export const nodeAtomicWriteIo: AtomicWriteIo = {
  writeFile: (p, d) => writeFile(p, d, { flag: 'wx' }),
  rename: (a, b) => rename(a, b),
  unlink: (p) => unlink(p),
};

/** A fresh temporary name next to `path` (hidden, unique per process and call). */
export function temporaryPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

const TEMPORARY = /^\.(.+)\.(\d+)\.[0-9a-f]{12}\.tmp$/;

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by someone else
  }
}

/**
 * Removes the temporary files an interrupted write to `path` left behind (named as
 * {@link temporaryPathFor} names them, by a process that is no longer alive). Best effort: an
 * unreadable folder or a file that cannot be removed is left alone. Cost: one directory listing.
 * @returns the removed paths.
 */
export function removeStaleTemporaries(path: string): string[] {
  const dir = dirname(path);
  const base = basename(path);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = TEMPORARY.exec(name);
    if (!m || m[1] !== base || processAlive(Number(m[2]))) continue;
    try {
      rmSync(join(dir, name), { force: true });
      removed.push(join(dir, name));
    } catch {
      // left for a later write
    }
  }
  return removed;
}

/**
 * Writes `data` to `path` atomically (after removing temporaries of earlier interrupted writes).
 * @throws the file-system error (target untouched, temporary file removed) when the directory is
 *   missing or not writable.
 * @example
 * ```ts
 * await writeFileAtomic('state.json', JSON.stringify(state));
 * ```
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  io: AtomicWriteIo = nodeAtomicWriteIo,
): Promise<void> {
  removeStaleTemporaries(path);
  const tmp = temporaryPathFor(path);
  try {
    await io.writeFile(tmp, data);
    await io.rename(tmp, path);
  } catch (e) {
    await io.unlink(tmp).catch(() => undefined);
    throw e;
  }
}

/** Synchronous {@link writeFileAtomic} (for CLI paths that write several files in sequence). */
export function writeFileAtomicSync(path: string, data: string | Uint8Array): void {
  removeStaleTemporaries(path);
  const tmp = temporaryPathFor(path);
  try {
    writeFileSync(tmp, data, { flag: 'wx' });
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
