/**
 * Built-in systems, registered by name (`closed-form`, and later the reference graph), and the
 * loader for user systems from an ES module file whose default export follows the contract.
 */
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ArgumentError } from '../util/errors.js';
import { defineSystem } from './define.js';
import type { OperatorSystem, OperatorSystemSpec } from './types.js';

/** Builds a system from optional parameters. */
export type SystemFactory = (params?: Record<string, unknown>) => OperatorSystem;

const registry = new Map<string, { factory: SystemFactory; description: string }>();

/**
 * Registers a built-in system under `name`.
 * @throws {ArgumentError} the name is taken.
 */
export function registerSystem(name: string, description: string, factory: SystemFactory): void {
  if (registry.has(name)) throw new ArgumentError('name', name, 'is already registered');
  registry.set(name, { factory, description });
}

/** The registered systems with one-line descriptions. */
export function listSystems(): Array<{ name: string; description: string }> {
  return [...registry].map(([name, v]) => ({ name, description: v.description }));
}

/**
 * Builds the built-in system `name`.
 * @throws {ArgumentError} unknown name (the message lists the known ones).
 */
export function getSystem(name: string, params?: Record<string, unknown>): OperatorSystem {
  const entry = registry.get(name);
  if (!entry)
    throw new ArgumentError('system', name, `is not a built-in system (known: ${[...registry.keys()].join(', ')})`);
  return entry.factory(params);
}

/**
 * Loads a user system from an ES module file (`.mjs`/`.js`) whose default export is an
 * {@link OperatorSystemSpec}, and validates it.
 * @throws {ArgumentError} the file does not exist, has no default export, or the export breaks
 *   the contract (the message names the field).
 */
export async function loadSystemModule(file: string): Promise<OperatorSystem> {
  const path = resolve(file);
  try {
    await access(path);
  } catch {
    throw new ArgumentError('file', file, 'does not exist or cannot be read');
  }
  const mod = (await import(pathToFileURL(path).href)) as { default?: unknown };
  if (mod.default === undefined) {
    throw new ArgumentError(
      'file',
      file,
      'has no default export; export default { name, dim, consolidate, expand, evidence }',
    );
  }
  return defineSystem(mod.default as OperatorSystemSpec);
}
