/**
 * Cross-check of two Jacobian engines (central differences vs autodiff) column by column.
 *
 * Tolerance for column j: (r_a + r_b) · (‖a_j‖ + S), where r_a, r_b are the engines' relative
 * accuracies (eps^(2/3) for f64 central differences, 1e-6 for float32 autodiff) and
 * S = max_j ‖a_j‖ over the checked columns. The S term is the global scale: a float32 engine
 * cannot resolve a small column to its own relative accuracy when larger terms of the same
 * computation round at S·1e-6. A column beyond this tolerance signals a kink in the operator
 * (a max, an absolute value, a clamp) at or near x, or a bug in one of the two forms.
 */
import { ArgumentError } from '../util/errors.js';
import type { JacobianOperator } from './operator.js';
import { sparseCombine, sparseNorm } from './sparse.js';

/** One column that disagreed. */
export interface ColumnDisagreement {
  column: number;
  /** ‖a_j − b_j‖₂. */
  difference: number;
  tolerance: number;
}

/** Result of {@link crossCheckJacobians}. */
export interface CrossCheck {
  methods: [string, string];
  columnsChecked: number;
  /** max_j ‖a_j − b_j‖ / tolerance_j (<= 1 means agreement). */
  worstRatio: number;
  /** S of the tolerance. */
  globalScale: number;
  disagreements: ColumnDisagreement[];
  agree: boolean;
}

/**
 * Compares J e_j from two engines for each j in `columns`.
 * Cost: the columns of both engines (cached by them).
 * @throws {ArgumentError} the engines have different dimensions.
 */
export function crossCheckJacobians(a: JacobianOperator, b: JacobianOperator, columns: readonly number[]): CrossCheck {
  if (a.dim !== b.dim || a.outDim !== b.outDim)
    throw new ArgumentError('b.dim', b.dim, `must match a (${a.dim} -> ${a.outDim})`);
  a.prefetch(columns);
  b.prefetch(columns);
  let S = 0;
  for (const j of columns) S = Math.max(S, sparseNorm(a.column(j)));
  const r = a.relativeAccuracy + b.relativeAccuracy;
  const disagreements: ColumnDisagreement[] = [];
  let worst = 0;
  for (const j of columns) {
    const aj = a.column(j);
    const difference = sparseNorm(sparseCombine(1, aj, -1, b.column(j)));
    const tolerance = r * (sparseNorm(aj) + S);
    const ratio = tolerance > 0 ? difference / tolerance : difference > 0 ? Infinity : 0;
    worst = Math.max(worst, ratio);
    if (difference > tolerance) disagreements.push({ column: j, difference, tolerance });
  }
  return {
    methods: [a.method, b.method],
    columnsChecked: columns.length,
    worstRatio: worst,
    globalScale: S,
    disagreements,
    agree: disagreements.length === 0,
  };
}
