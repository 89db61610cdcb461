/**
 * Where the shared real-data files live (they are not part of the package): the folder named by
 * the environment variable ORDERGAP_DATA_DIR (only that folder when it is set), else
 * `<repo>/../shared/data`. Used by bench/stopping.ts and the tests that need real samples; both say
 * clearly when the file is absent (a user's checkout has no shared folder).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The ESC release of GPT-3.5-turbo samples for Last Letters (see ../shared/data/README.md). */
export const ESC_LAST_LETTERS = 'esc-gpt35-last-letters.jsonl';

/** The folders searched, in order. */
export function dataDirs(): string[] {
  const repo = fileURLToPath(new URL('..', import.meta.url));
  const env = process.env.ORDERGAP_DATA_DIR;
  return env ? [resolve(env)] : [resolve(repo, '..', 'shared', 'data')];
}

/** The path of a shared data file, or null when no searched folder holds it. */
export function sharedDataFile(name: string): string | null {
  for (const d of dataDirs()) if (existsSync(join(d, name))) return join(d, name);
  return null;
}

/** The sentence to print when a shared data file is absent. */
export function absentMessage(name: string): string {
  return `${name} is absent (searched ${dataDirs().join(', ')}; set ORDERGAP_DATA_DIR to its folder)`;
}
