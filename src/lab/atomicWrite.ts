/**
 * Atomic file writes: the text goes to a temporary file in the same directory, which is then
 * renamed over the target (rename within one file system is atomic on POSIX), so a reader sees
 * either the old file or the whole new one — never a half-written file. On failure the temporary
 * file is removed and the target is untouched.
 */
import { randomBytes } from 'node:crypto';
import { rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `text` to `path` atomically.
 * @throws the file-system error (with the target untouched) when the directory is missing or
 *   not writable.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, text, { flag: 'wx' });
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
}
