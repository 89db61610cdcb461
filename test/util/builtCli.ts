/**
 * The real built CLI (`npm run build:ts`; `npm ci` builds it through `prepare`) run in a child
 * process, and temporary folders that a test file removes when it ends: what the CLI tests share.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

/** The built CLI's entry (dist/cli/main.js). */
export const BIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** `ordergap <args>` in a child process, its output as text. */
export function runCli(...args: string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
}

/** A fresh folder under the system's temporary folder, removed after the enclosing block's tests. */
export function tempFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ordergap-${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
