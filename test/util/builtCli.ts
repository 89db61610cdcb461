/**
 * The real built CLI (`npm run build:ts`; `npm ci` builds it through `prepare`) and the
 * repository's scripts run in a child process, and temporary folders that a test file removes when
 * it ends: what the CLI and script tests share.
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

/** `node scripts/<name> <args>`: one of the repository's scripts (api-report.mjs, doc-samples.mjs, …). */
export function runScript(name: string, ...args: string[]): SpawnSyncReturns<string> {
  const script = fileURLToPath(new URL(`../../scripts/${name}`, import.meta.url));
  return spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });
}

/** A fresh folder under the system's temporary folder, removed after the enclosing block's tests. */
export function tempFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ordergap-${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
