/**
 * Enclosures of a system's Q and P_e over boxes, from the forms the system already has: its
 * `intervalForm` capability when declared, else its tfjs forms (`linearization.consolidateTf`,
 * `expandTf`) evaluated with the interval implementation of the tfjs ops
 * (src/interval/intervalTf.ts: outward-rounded values and interval forward-mode tangents). The
 * forms' constants are read as exact f64 numbers: the proofs are about the real-number map the
 * form writes down with those constants (the f64 and float32 evaluations are roundings of it).
 */
import { encloseForm } from '../interval/intervalTf.js';
import type { FormEnclosure, OperatorSystem } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';
import type { Encloser } from './contractionProof.js';

/** Checks a form's result: lengths and the Jacobian's shape (an error names the form). */
function checked(what: string, d: number, seeds: Int32Array | null, rows: Int32Array | null, e: FormEnclosure) {
  if (!(e?.lo instanceof Float64Array) || !(e.hi instanceof Float64Array) || e.lo.length !== d || e.hi.length !== d)
    throw new ArgumentError(what, e, `must return { lo, hi } as Float64Arrays of length ${d}`);
  if (seeds) {
    const r = rows ? rows.length : d;
    const j = e.jacobian;
    if (
      !j ||
      j.rows !== r ||
      j.cols !== seeds.length ||
      j.lo.length !== r * seeds.length ||
      j.hi.length !== r * seeds.length
    )
      throw new ArgumentError(`${what}.jacobian`, j, `must be ${r}×${seeds.length} (rows × seeds)`);
  }
  return e;
}

/** How a system's Q is enclosed: 'interval form', 'tfjs form', or null when it has neither. */
export function enclosureSource(system: OperatorSystem): 'interval form' | 'tfjs form' | null {
  if (system.capabilities.intervalForm) return 'interval form';
  if (system.capabilities.linearization?.consolidateTf) return 'tfjs form';
  return null;
}

/** An {@link Encloser} of Q, or null when the system has neither an interval form nor a tfjs form. */
export function consolidateEncloser(system: OperatorSystem): Encloser | null {
  const d = system.dim;
  const form = system.capabilities.intervalForm;
  if (form)
    return (lo, hi, seeds, rows = null) =>
      checked(`${system.name}: intervalForm.consolidate`, d, seeds, rows, form.consolidate(lo, hi, seeds, rows));
  const tf = system.capabilities.linearization?.consolidateTf;
  if (!tf) return null;
  return (lo, hi, seeds, rows = null) =>
    encloseForm(tf as never, lo, hi, { ...(seeds ? { seeds } : {}), ...(rows ? { rows } : {}) });
}

/** An {@link Encloser} of P_e, or null when the system has neither form of P_e. */
export function expandEncloser(system: OperatorSystem, evidenceId: string): Encloser | null {
  const d = system.dim;
  const form = system.capabilities.intervalForm;
  if (form?.expand) {
    const expand = form.expand;
    return (lo, hi, seeds, rows = null) =>
      checked(`${system.name}: intervalForm.expand`, d, seeds, rows, expand(evidenceId, lo, hi, seeds, rows));
  }
  if (form) return null;
  const tf = system.capabilities.linearization?.expandTf;
  if (!tf) return null;
  const map = (t: unknown, X: unknown) => (tf as (t: unknown, id: string, X: unknown) => unknown)(t, evidenceId, X);
  return (lo, hi, seeds, rows = null) =>
    encloseForm(map as never, lo, hi, { ...(seeds ? { seeds } : {}), ...(rows ? { rows } : {}) });
}
