/**
 * The contraction check on a subspace W = span(B) given by vectors (src/certify/contraction.ts):
 * the map on W (pairs x − y ∈ W, the ratio ‖P_W(Q(x) − Q(y))‖/‖x − y‖, the local norm ‖Bᵀ DQ B‖₂)
 * against the coordinate block it reduces to, against exact linear maps, and through `certify`.
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { certify } from '../../src/certify/certify.js';
import { basisOf } from '../../src/certify/subspace.js';
import { verifyContraction } from '../../src/certify/contraction.js';
import { FdJacobian } from '../../src/linearize/finiteDifference.js';
import { defineSystem } from '../../src/system/define.js';
import type { OperatorSystem } from '../../src/system/types.js';
import { linearSystem, randomOrthogonal, transpose, type Mat } from './linearSystems.js';

/** FD relative accuracy eps^(2/3) with room: central differences of a linear map are exact up to rounding. */
const FD_TOL = 1e-9;

const jacobianOf = (sys: OperatorSystem, theta: Float64Array) => new FdJacobian((t) => sys.consolidate(t), theta);

/** Q(x) = A x: DQ = A, and on W = span(B), g(z) = Bᵀ A (θ_⊥ + B z) has Lipschitz constant ‖Bᵀ A B‖₂. */
function linear(A: Mat) {
  return linearSystem({ A, items: [{ id: 'e', p: 1, B: A.map((r, i) => r.map((_, j) => (i === j ? 1 : 0))) }] });
}

/** The 2×2 symmetric A = R diag(1.2, 0.2) Rᵀ, R the 45° rotation: 1.2 along (1, 1), 0.2 along (1, −1). */
const A45: Mat = [
  [0.7, 0.5],
  [0.5, 0.7],
];

describe('verifyContraction on a span of vectors', () => {
  it('on unit vectors it is the coordinate block: the same pairs, ratios, budget and verdict', () => {
    const sys = linear([
      [0.5, 0.2, 0.1],
      [0.0, 0.9, 0.3],
      [0.2, 0.1, 1.1],
    ]);
    const theta = Float64Array.of(0.3, -0.2, 0.7);
    const J = jacobianOf(sys, theta);
    const byCoords = verifyContraction(sys, theta, { jacobian: J, coordinates: [0, 2], name: 'b', seed: 5 });
    const basis = basisOf(3, { name: 'b', coordinates: [0, 2] }).vectors;
    const bySpan = verifyContraction(sys, theta, { jacobian: J, basis, name: 'b', seed: 5 });
    expect(bySpan.verdict).toBe(byCoords.verdict);
    expect(bySpan.dim).toBe(2);
    expect(bySpan.evaluations).toBe(byCoords.evaluations);
    // unit vectors lift and project exactly: the same points, the same ratios
    expect(bySpan.worstPair!.x).toEqual(byCoords.worstPair!.x);
    expect(bySpan.worstPair!.y).toEqual(byCoords.worstPair!.y);
    expect(bySpan.worstPair!.ratio).toBe(byCoords.worstPair!.ratio);
    expect(bySpan.worstPair!.direction).toEqual(byCoords.worstPair!.direction);
    // the slack adds the projection's rounding (n = 1 term per entry); the worst pair is the one
    // along the local norm's direction (‖Dg‖ > 1 here), 2·1e-3 apart: slack ~ 8·eps·‖g‖/2e-3
    expect(bySpan.worstPair!.source).toBe('local direction');
    expect(bySpan.worstPair!.slack).toBeGreaterThanOrEqual(byCoords.worstPair!.slack);
    expect(bySpan.worstPair!.slack).toBeLessThan(1e-11);
    // ‖BᵀDQB‖ by BᵀJB against the block's columns: the same matrix, FD-accurate
    expect(Math.abs(bySpan.localNorm - byCoords.localNorm)).toBeLessThan(FD_TOL * byCoords.localNorm);
  });

  it('finds the expanding direction (1, 1) that no coordinate block shows', () => {
    const sys = linear(A45);
    const theta = Float64Array.of(0.1, 0.4);
    const J = jacobianOf(sys, theta);
    // each coordinate block has g(z) = 0.7 z + const: contractive looking
    for (const j of [0, 1]) {
      const block = verifyContraction(sys, theta, { jacobian: J, coordinates: [j], name: `x${j}` });
      expect(block.verdict).toBe('undecided');
      expect(block.empiricalLowerBound).toBeLessThan(0.7 + 1e-12);
    }
    const diag = verifyContraction(sys, theta, {
      jacobian: J,
      basis: basisOf(2, { name: 'diag', vectors: [[1, 1]] }).vectors,
      name: 'diag',
    });
    expect(diag.verdict).toBe('refuted');
    // g(z) = 1.2 z exactly: every pair has ratio 1.2 up to rounding
    expect(Math.abs(diag.empiricalLowerBound - 1.2)).toBeLessThan(1e-12);
    expect(Math.abs(diag.localNorm - 1.2)).toBeLessThan(FD_TOL);
    expect(diag.failingDirections.map((c) => c.name).sort()).toEqual(['x0', 'x1']);
    expect(Math.abs(diag.failingDirections[0]!.value)).toBeCloseTo(Math.abs(diag.failingDirections[1]!.value), 12);
    expect(diag.searchBox).toMatch(/orthonormal basis B of W/);
    expect(diag.notes.join(' ')).toMatch(/‖P_W\(Q\(x\) − Q\(y\)\)‖\/‖x − y‖/);
    // along (1, −1) the ratio is 0.2: a declared bound 0.25 is consistent (spans are not proved:
    // undecided), a bound 0.1 is refuted
    const anti = basisOf(2, { name: 'anti', vectors: [[1, -1]] }).vectors;
    const ok = verifyContraction(sys, theta, { jacobian: J, basis: anti, name: 'anti', analyticBound: 0.25 });
    expect(ok.verdict).toBe('undecided');
    expect(ok.analyticBoundRefuted).toBe(false);
    expect(Math.abs(ok.empiricalLowerBound - 0.2)).toBeLessThan(1e-12);
    expect(Math.abs(ok.localNorm - 0.2)).toBeLessThan(FD_TOL);
    const wrong = verifyContraction(sys, theta, { jacobian: J, basis: anti, name: 'anti', analyticBound: 0.1 });
    expect(wrong.analyticBoundRefuted).toBe(true);
    expect(wrong.verdict).toBe('undecided');
  });

  it('the JVP lower bound of ‖BᵀDQB‖ (exactColumns 0) stays below the exact norm and reaches it here', () => {
    const sys = linear(A45);
    const theta = Float64Array.of(0.1, 0.4);
    const basis = basisOf(2, { name: 'w', vectors: [[1, 1]] }).vectors;
    const lb = verifyContraction(sys, theta, { jacobian: jacobianOf(sys, theta), basis, exactColumns: 0 });
    expect(lb.localNormKind).toBe('lower-bound');
    expect(lb.localNorm).toBeLessThanOrEqual(1.2 * (1 + FD_TOL));
    expect(lb.localNorm).toBeGreaterThan(1.2 * (1 - FD_TOL)); // one direction: the first step is exact
  });

  // Q a signed permutation of the first k coordinates (exact in f64) scaled by s, B a random
  // orthonormal basis of their span: g is s times an isometry of W, so every ratio is s up to the
  // rounding of the lift and the projection, which the slack must cover (s = 1: a counterexample)
  // and must not exceed (s = 0.999 is no counterexample).
  fcTest.prop([fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 1e6 }), fc.boolean()], { numRuns: 25 })(
    'an isometry of W is flagged, 0.999 times one is not (slack large enough, not too large)',
    (k, seed, isometry) => {
      const n = k + 2;
      const s = isometry ? 1 : 0.999;
      const perm = Array.from({ length: k }, (_, i) => (i + 1) % k);
      const sys = defineSystem({
        name: 'isometry',
        dim: n,
        theta0: new Array<number>(n).fill(0.5),
        consolidate: (t) => Array.from(t, (x, i) => (i < k ? s * (i % 2 ? -1 : 1) * t[perm[i]!]! : 0.5 * x)),
        expand: (_e, t) => Array.from(t),
        evidence: [{ id: 'e', p: 1 }],
      });
      const R = transpose(randomOrthogonal(k, seed)); // rows orthonormal
      const vectors = R.map((r) => [...r, 0, 0]);
      const theta = Float64Array.from({ length: n }, (_, i) => Math.sin(seed + i));
      const res = verifyContraction(sys, theta, {
        jacobian: jacobianOf(sys, theta),
        basis: basisOf(n, { name: 'w', vectors }).vectors,
        name: 'w',
        samples: 8,
        ascentSteps: 8,
        seed,
      });
      const pair = res.worstPair!;
      expect(Math.abs(pair.ratio - s)).toBeLessThanOrEqual(pair.slack);
      expect(res.verdict).toBe(isometry ? 'refuted' : 'undecided');
    },
  );

  it('names a bad basis: not orthonormal, of the wrong length, or given with coordinates', () => {
    const sys = linear(A45);
    const theta = Float64Array.of(0.1, 0.4);
    const J = jacobianOf(sys, theta);
    const b = (index: number[], value: number[], dim = 2) => ({
      dim,
      index: Int32Array.from(index),
      value: Float64Array.from(value),
    });
    expect(() => verifyContraction(sys, theta, { jacobian: J, basis: [b([0, 1], [1, 1])] })).toThrow(
      /^basis\[0\] = .*must be orthonormal/,
    );
    expect(() => verifyContraction(sys, theta, { jacobian: J, basis: [b([0], [1]), b([0, 1], [0.6, 0.8])] })).toThrow(
      /^basis\[1\] = .*must be orthonormal/,
    );
    expect(() => verifyContraction(sys, theta, { jacobian: J, basis: [b([0], [1], 3)] })).toThrow(
      /^basis\[0\]\.dim = 3/,
    );
    expect(() => verifyContraction(sys, theta, { jacobian: J, basis: [] })).toThrow(/^basis = .*at least one/);
    expect(() => verifyContraction(sys, theta, { jacobian: J, basis: [b([0], [1])], coordinates: [0] })).toThrow(
      /^basis = .*excludes coordinates/,
    );
  });
});

describe('certify checks a contraction subspace given by vectors', () => {
  it('an entry per block, the span decided as the map on W', async () => {
    const sys = linearSystem({
      A: A45,
      items: [
        {
          id: 'e',
          p: 1,
          B: [
            [1, 0],
            [0, 0.5],
          ],
        },
      ],
      theta0: [0.4, 0.1],
      subspaces: { x0: [0] },
    });
    const r = await certify(sys, {
      contractionSubspaces: ['all', 'x0', { name: 'diag', vectors: [[2, 2]] }, { name: 'x1', coordinates: [1] }],
      subspaces: [],
      questions: [],
    });
    expect(r.contraction.map((c) => [c.subspace, c.dim, c.verdict])).toEqual([
      ['all', 2, 'refuted'],
      ['x0', 1, 'undecided'],
      ['diag', 1, 'refuted'],
      ['x1', 1, 'undecided'],
    ]);
    const diag = r.contraction[2]!;
    expect(Math.abs(diag.localNorm - 1.2)).toBeLessThan(FD_TOL);
    // the whole-space verdict is the block 'all', not the span
    expect(r.contraction[0]!.subspace).toBe('all');
  });
});
