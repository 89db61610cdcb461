/**
 * Built-in systems, registered by name (`closed-form`, and later the reference graph), and the
 * loader for user systems from an ES module file whose default export follows the contract.
 */
import { spawnSync } from 'node:child_process';
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ArgumentError, ArgumentTypeError, isArgumentError } from '../util/errors.js';
import { checkInputFile, checkSystemMemory } from '../util/resources.js';
import { maxOf } from '../util/arrays.js';
import { coordinateCount } from './coordinates.js';
import { defineSystem } from './define.js';
import type { OperatorSystem, OperatorSystemSpec } from './types.js';

/** Builds a system from optional parameters. */
export type SystemFactory = (params?: Record<string, unknown>) => OperatorSystem;

const registry = new Map<string, { factory: SystemFactory; description: string }>();

/**
 * Registers a built-in system under `name`.
 * @throws {ArgumentError} a blank or taken name, a description that is not a string, a factory
 *   that is not a function.
 */
export function registerSystem(name: string, description: string, factory: SystemFactory): void {
  if (typeof name !== 'string' || name.trim() === '')
    throw new ArgumentTypeError('name', name, 'must be a non-empty string');
  if (typeof description !== 'string') throw new ArgumentTypeError('description', description, 'must be a string');
  if (typeof factory !== 'function')
    throw new ArgumentTypeError('factory', factory, 'must be a function (params?) => OperatorSystem');
  if (registry.has(name)) throw new ArgumentError('name', name, 'is already registered');
  registry.set(name, { factory, description });
}

/** The registered systems with one-line descriptions. */
export function listSystems(): Array<{ name: string; description: string }> {
  return [...registry].map(([name, v]) => ({ name, description: v.description }));
}

/**
 * Builds the built-in system `name`.
 * @throws {ArgumentError} unknown name (the message lists the known ones); a factory that returns
 *   no operator system.
 */
export function getSystem(name: string, params?: Record<string, unknown>): OperatorSystem {
  const entry = registry.get(name);
  if (!entry)
    throw new ArgumentError('system', name, `is not a built-in system (known: ${[...registry.keys()].join(', ')})`);
  const system = entry.factory(params);
  // a factory registered by a user: what it built must be a system (defineSystem's result)
  if (typeof system !== 'object' || system === null || typeof system.consolidate !== 'function')
    throw new ArgumentTypeError(`system "${name}": factory()`, system, 'must return an operator system (defineSystem)');
  return system;
}

/** The location `file:line:col` of a SyntaxError in `path`, from a real parse (`node --check`). */
function syntaxErrorLocation(path: string): { where: string; message: string } | undefined {
  const r = spawnSync(process.execPath, ['--check', path], { encoding: 'utf8', timeout: 10_000 });
  const lines = (r.stderr ?? '').split('\n');
  const head = /^(.*):(\d+)$/.exec(lines[0] ?? '');
  if (!head) return undefined;
  const caret = lines.slice(1, 4).find((l) => /^\s*\^/.test(l));
  const col = caret === undefined ? '' : `:${caret.indexOf('^') + 1}`;
  const message = lines.find((l) => l.startsWith('SyntaxError: '))?.slice('SyntaxError: '.length) ?? 'syntax error';
  return { where: `${head[1]}:${head[2]}${col}`, message };
}

/** This package's own code (its frames are not the user's, nor are those of any dependency). */
const OWN_CODE = ['src', 'dist'].map((d) => fileURLToPath(new URL(`../../${d}/`, import.meta.url)));

/** The first stack frame in a user file (`/path/mod.mjs:3:7`), if any. */
export function userFrameOf(e: unknown): string | undefined {
  const stack = typeof (e as Error)?.stack === 'string' ? (e as Error).stack! : '';
  for (const line of stack.split('\n').slice(1)) {
    const m = /\(?(file:\/\/[^\s)]+):(\d+):(\d+)\)?\s*$/.exec(line.trim());
    if (m && !m[1]!.includes('/node_modules/') && !OWN_CODE.some((dir) => fileURLToPath(m[1]!).startsWith(dir)))
      return `${fileURLToPath(m[1]!)}:${m[2]}:${m[3]}`;
  }
  return undefined;
}

/** A user operator threw: names the system, the operator and where in the user's file. */
export class OperatorCallError extends Error {
  /** The operator (`consolidate`, `expand`, `evidence`, ...). */
  readonly operator: string;
  constructor(system: string, operator: string, cause: unknown) {
    const err = cause as Error;
    const what = err instanceof Error ? `${err.name}: ${err.message.split('\n')[0]}` : String(cause);
    const at = userFrameOf(cause);
    super(`${system}: ${operator} threw ${what}${at ? ` (at ${at})` : ''}`, { cause });
    this.name = 'OperatorCallError';
    this.operator = operator;
  }
}

const GUARDED = ['consolidate', 'expand', 'evidence', 'describeCoordinate', 'orderGap', 'step'] as const;

function isAsyncFunction(f: unknown): boolean {
  return (
    typeof f === 'function' &&
    (f.constructor?.name === 'AsyncFunction' || f.constructor?.name === 'AsyncGeneratorFunction')
  );
}

function isThenable(v: unknown): boolean {
  return v !== null && typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function';
}

/**
 * The spec of a module's default export with its operators wrapped: a Promise result or an async
 * function is refused naming the field, a throw becomes an {@link OperatorCallError} naming the
 * operator and the line in the user's file. A validated system (`export default
 * defineSystem(...)`) is accepted: its spec is validated again here.
 */
function guardedSpec(exported: unknown): OperatorSystemSpec {
  const sys = exported as Partial<OperatorSystem>;
  const src = (
    sys !== null && typeof sys === 'object' && typeof sys.evidenceAt === 'function' && typeof sys.spec === 'object'
      ? sys.spec
      : exported
  ) as Record<string, unknown>;
  if (src === null || typeof src !== 'object') return src as unknown as OperatorSystemSpec;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(src)) out[key] = src[key];
  for (const key of GUARDED) {
    const f = src[key]; // also from a prototype (a class instance)
    if (f === undefined) continue;
    if (typeof f !== 'function') {
      out[key] = f;
      continue;
    }
    if (isAsyncFunction(f))
      throw new ArgumentTypeError(`system.${key}`, f, 'is an async function; operators must be synchronous');
    const name = typeof src['name'] === 'string' ? src['name'] : 'system';
    out[key] = (...args: unknown[]) => {
      let r: unknown;
      try {
        r = (f as (...a: unknown[]) => unknown).apply(src, args);
      } catch (e) {
        if (isArgumentError(e)) throw e;
        throw new OperatorCallError(name, key, e);
      }
      if (isThenable(r))
        throw new ArgumentTypeError(`system.${key}`, r, 'returned a Promise; operators must be synchronous');
      return r;
    };
  }
  return out as unknown as OperatorSystemSpec;
}

/**
 * Calls Q, P(·|θ0) and P_e for the first evidence items once at θ0 (when declared) to check the
 * part of the contract only a call shows: each returns synchronously a result of the right shape
 * (the wrapper validates it). An operator that modifies its argument is harmless: the system
 * hands every user operator a fresh copy of θ (src/system/define.ts).
 */
function probeAtTheta0(system: OperatorSystem): void {
  if (system.theta0 === undefined) return;
  const theta = Float64Array.from(system.theta0);
  system.consolidate(theta);
  for (const e of system.evidenceAt(theta).slice(0, 4)) system.expand(e.id, theta);
}

/**
 * Loads a user system from an ES module file (`.mjs`/`.js`) whose default export is an
 * {@link OperatorSystemSpec} or a system built with `defineSystem`, validates it, and calls its
 * operators once at θ0 (if declared) to check they are synchronous and return the right shape.
 * @throws {ArgumentError} the file does not exist, has a syntax error (with file, line and
 *   column), throws while loading (with the line), has no default export, or the export breaks
 *   the contract (the message names the field). A user operator that throws later, during the
 *   work, raises an {@link OperatorCallError} naming the operator and the line.
 */
export async function loadSystemModule(file: string): Promise<OperatorSystem> {
  const path = resolve(file);
  try {
    await access(path);
  } catch {
    throw new ArgumentError('file', file, 'does not exist or cannot be read');
  }
  checkInputFile('file', file); // a device (/dev/zero) would make the loader read forever
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (e) {
    if (e instanceof SyntaxError && !userFrameOf(e)) {
      const loc = syntaxErrorLocation(path);
      throw new ArgumentError(
        'file',
        file,
        loc
          ? `has a syntax error at ${loc.where}: ${loc.message}`
          : `imports a module with a syntax error: ${e.message.split('\n')[0]}`,
      );
    }
    const err = e as Error;
    const at = userFrameOf(e);
    const what = err instanceof Error ? `${err.name}: ${err.message.split('\n')[0]}` : String(e);
    throw new ArgumentError('file', file, `failed to load: ${what}${at ? ` (at ${at})` : ''}`);
  }
  if (mod.default === undefined) {
    throw new ArgumentError(
      'file',
      file,
      'has no default export; export default { name, dim, consolidate, expand, evidence }',
    );
  }
  const system = defineSystem(guardedSpec(mod.default));
  const largest = maxOf(
    Object.values(system.subspaces).map((s) => coordinateCount(s)),
    0,
  );
  // certify decides the declared subspaces, and the whole space 'all' only while d <= 2048
  checkSystemMemory(system.dim, Math.max(largest, Math.min(system.dim, 2048)));
  probeAtTheta0(system);
  return system;
}
