/**
 * Validation of the plain records the plot functions take. Errors name the argument with the
 * index and field (`points[3].omega = NaN: must be a finite number`).
 */
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { finiteNumber } from '../util/validate.js';

/**
 * Checks `value` is a non-empty array of objects and returns it.
 * @throws {ArgumentTypeError} not an array, or an entry is not an object; {ArgumentError} empty.
 */
export function recordArray<T>(name: string, value: unknown): readonly T[] {
  if (!Array.isArray(value)) throw new ArgumentTypeError(name, value, 'must be an array of records');
  if (value.length === 0) throw new ArgumentError(name, value, 'must not be empty');
  value.forEach((r, i) => {
    if (r === null || typeof r !== 'object' || Array.isArray(r))
      throw new ArgumentTypeError(`${name}[${i}]`, r, 'must be an object');
  });
  return value as T[];
}

/** A finite number field of record `i` of array `name`. */
export function finiteField(name: string, i: number, record: object, field: string): number {
  return finiteNumber(`${name}[${i}].${field}`, (record as Record<string, unknown>)[field]);
}

/** A finite number field that may also be null or absent (returns null then). */
export function optionalFiniteField(name: string, i: number, record: object, field: string): number | null {
  const v = (record as Record<string, unknown>)[field];
  return v === null || v === undefined ? null : finiteNumber(`${name}[${i}].${field}`, v);
}

/** A string field of record `i` (non-empty). */
export function stringField(name: string, i: number, record: object, field: string): string {
  const v = (record as Record<string, unknown>)[field];
  if (typeof v !== 'string') throw new ArgumentTypeError(`${name}[${i}].${field}`, v, 'must be a string');
  if (v.length === 0) throw new ArgumentError(`${name}[${i}].${field}`, v, 'must not be empty');
  return v;
}

/** Compact number label for annotations (`0.025`, `1.2e-9`). */
export function formatNumber(x: number): string {
  if (x === 0) return '0';
  const a = Math.abs(x);
  return a >= 1e-3 && a < 1e5 ? String(Number(x.toPrecision(4))) : x.toExponential(2);
}
