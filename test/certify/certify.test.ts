import { describe, expect, it } from 'vitest';
import { consolidateEncloser } from '../../src/certify/enclosure.js';
import { findFixedPoint } from '../../src/certify/fixedPoint.js';
import { ratioSlack, verifyContraction } from '../../src/certify/contraction.js';
import { certify } from '../../src/certify/certify.js';
import { FdJacobian } from '../../src/linearize/finiteDifference.js';
import { closedFormSystem } from '../../src/closedForm/system.js';
import { runRecursive } from '../../src/ordergap/algorithm1.js';
import { defineSystem } from '../../src/system/define.js';
import { ArgumentError } from '../../src/util/errors.js';
import { init, wasm } from '../../src/wasm/module.js';
import { commutator, linearSystem, randomMatrix, randomOrthogonal, type Mat } from './linearSystems.js';

/** Q(x) = ρ U x + a with U orthogonal: Lipschitz constant exactly ρ, fixed point (I − ρU)⁻¹a. */
function rotationSystem(rho: number, declared?: number) {
  const n = 4;
  const U = randomOrthogonal(n, 3);
  const A: Mat = U.map((r) => r.map((v) => rho * v));
  return linearSystem({
    A,
    a: [0.1, -0.2, 0.3, 0.05],
    theta0: [1, 1, 1, 1],
    items: [
      { id: 'e1', p: 0.5, B: randomMatrix(n, 9, 0.4) },
      { id: 'e2', p: 0.5, B: randomMatrix(n, 10, 0.4) },
    ],
    subspaces: { head: [0, 1] },
    questions: { q1: [0, 1], q2: [2, 3] },
    ...(declared !== undefined ? { lipschitz: { all: declared } } : {}),
  });
}

/** verifyContraction at the fixed point of Q with FD Jacobians and the proof by enclosure of its tfjs form. */
function contractionAtFixedPoint(sys: ReturnType<typeof rotationSystem>) {
  const theta = findFixedPoint(sys).theta;
  return verifyContraction(sys, theta, {
    jacobian: new FdJacobian((t) => sys.consolidate(t), theta),
    enclose: consolidateEncloser(sys),
  });
}

describe('findFixedPoint', () => {
  it('converges for a contraction and its a-posteriori bound holds', () => {
    const sys = rotationSystem(0.6);
    const fp = findFixedPoint(sys, { rho: 0.6, tolerance: 1e-6 }); // stop early so the bound is not trivial
    expect(fp.converged).toBe(true);
    // θ* solves θ = 0.6 U θ + a: check by more iterations to machine precision
    const exact = findFixedPoint(sys, { tolerance: 1e-15 }).theta;
    const err = Math.hypot(...Array.from(fp.theta, (v, i) => v - exact[i]!));
    expect(err).toBeGreaterThan(0);
    expect(err).toBeLessThanOrEqual(fp.aPosterioriBound! * (1 + 1e-9) + 1e-15);
    expect(fp.residual).toBeLessThanOrEqual(fp.lastStep);
    expect(fp.observedRate!).toBeCloseTo(0.6, 2);
  });
  it('reports non-convergence as a result', () => {
    const sys = linearSystem({ A: [[1.01]], items: [{ id: 'e', p: 1, B: [[1]] }], theta0: [1] });
    const fp = findFixedPoint(sys, { maxIterations: 50 });
    expect(fp.converged).toBe(false);
    expect(fp.iterations).toBe(50);
  });
  it('names bad options', () => {
    expect(() => findFixedPoint(rotationSystem(0.5), { rho: 1 })).toThrow(ArgumentError);
    expect(() => findFixedPoint(rotationSystem(0.5), { rho: 1 })).toThrow(/^rho = 1/);
    expect(() => findFixedPoint(rotationSystem(0.5), { theta0: [1, 2] })).toThrow(/theta0/);
  });
});

describe('verifyContraction', () => {
  it('reports the closed-form Q as not a contraction on the whole space, naming c', () => {
    const sys = closedFormSystem();
    const theta = Float64Array.of(0.2, 0);
    const res = verifyContraction(sys, theta, { jacobian: new FdJacobian((t) => sys.consolidate(t), theta) });
    expect(res.verdict).toBe('refuted');
    expect(res.contractive).toBe(false);
    expect(res.worstPair!.ratio).toBeGreaterThanOrEqual(1 - res.worstPair!.slack);
    expect(res.failingDirections[0]!.name).toBe('c');
    // DQ(c, 0) = [[1, 0], [0, ρ(1 − c)]]: ‖DQ‖₂ = 1 to FD accuracy
    expect(Math.abs(res.localNorm - 1)).toBeLessThan(1e-9);
  });
  it('proves ρU (ρ = 0.6) a contraction by enclosure, bound 0.6 up to rounding; the empirical bound stays below it', () => {
    const res = contractionAtFixedPoint(rotationSystem(0.6, 0.6));
    expect(res.verdict).toBe('proved');
    // ‖0.6·U‖₂ = 0.6 for orthogonal U (U's entries rounded to f64, its orthogonality to ~n·eps)
    expect(res.upperBound!).toBeGreaterThan(0.6 * (1 - 1e-12));
    expect(res.upperBound!).toBeLessThan(0.6 * (1 + 1e-9));
    expect(res.notes.join(' ')).toMatch(/declared analytic bound 0\.6 against the proved/);
    expect(res.empiricalLowerBound).toBeLessThanOrEqual(0.6 + ratioSlack(2, 2, 1e-3));
    expect(res.empiricalLowerBound).toBeGreaterThan(0.59); // ρU scales every difference by exactly 0.6
    expect(Math.abs(res.localNorm - 0.6)).toBeLessThan(1e-9);
  });
  it('catches a wrong analytic bound (declared 0.3 for a 0.6-Lipschitz map)', () => {
    const res = contractionAtFixedPoint(rotationSystem(0.6, 0.3));
    // the proof does not read the declared bound: it stands, and the bound is flagged as wrong
    expect(res.verdict).toBe('proved');
    expect(res.analyticBoundRefuted).toBe(true);
    expect(res.notes.join(' ')).toMatch(/VIOLATED/);
  });
  it('is unverified without a bound, and checks a block separately', () => {
    const sys = rotationSystem(0.6);
    const theta = findFixedPoint(sys).theta;
    const J = new FdJacobian((t) => sys.consolidate(t), theta);
    expect(verifyContraction(sys, theta, { jacobian: J }).verdict).toBe('undecided');
    const block = verifyContraction(sys, theta, { jacobian: J, coordinates: [0, 1], name: 'head' });
    expect(block.dim).toBe(2);
    expect(block.localNorm).toBeLessThanOrEqual(0.6 + 1e-9); // a block of 0.6·U has norm <= 0.6
  });
  it('stopAtCounterexample ends the search at the first counterexample with the same verdict; without one it spends the whole budget', () => {
    const sys = closedFormSystem();
    const theta = Float64Array.of(0.2, 0);
    const jacobian = new FdJacobian((t) => sys.consolidate(t), theta);
    const full = verifyContraction(sys, theta, { jacobian, stopAtCounterexample: false });
    const early = verifyContraction(sys, theta, { jacobian, stopAtCounterexample: true });
    expect(early.verdict).toBe(full.verdict);
    expect(early.verdict).toBe('refuted');
    // the probes run first; the one along c (ratio 1: Q fixes c) ends the search
    expect(early.worstPair!.source).toBe('coordinate');
    expect(early.worstPair!.ratio).toBeGreaterThanOrEqual(1 - early.worstPair!.slack);
    expect(early.evaluations).toBeLessThan(full.evaluations);
    expect(early.empiricalLowerBound).toBeLessThanOrEqual(full.empiricalLowerBound);
    expect(early.notes.join(' ')).toMatch(/stopped at its first counterexample .* after \d+ evaluations/);
    expect(full.notes.join(' ')).not.toMatch(/first counterexample/);
    // a contraction has no counterexample: both spend the budget, 2·(samples + probes) + 4·ascent at most
    const rot = rotationSystem(0.6, 0.6);
    const at = findFixedPoint(rot).theta;
    const J = new FdJacobian((t) => rot.consolidate(t), at);
    const a = verifyContraction(rot, at, { jacobian: J, stopAtCounterexample: true });
    const b = verifyContraction(rot, at, { jacobian: J, stopAtCounterexample: false });
    expect(a.verdict).toBe('undecided'); // no encloser: no proof, and no counterexample
    expect(a.evaluations).toBe(b.evaluations);
    expect(() => verifyContraction(rot, at, { jacobian: J, stopAtCounterexample: 1 as unknown as boolean })).toThrow(
      /^stopAtCounterexample = 1/,
    );
  });
  it('rejects an inverted box, naming it', () => {
    const sys = rotationSystem(0.6);
    const theta = Float64Array.of(0, 0, 0, 0);
    expect(() =>
      verifyContraction(sys, theta, { jacobian: new FdJacobian((t) => sys.consolidate(t), theta), lower: 1, upper: 0 }),
    ).toThrow(/^lower\[0\] = 1/);
  });
});

describe('certify', () => {
  it('closed-form at its fixed point: not contractive; every Σ_e vanishes on c (degenerate)', async () => {
    const r = await certify(closedFormSystem());
    expect(r.dim).toBe(2);
    expect(r.fixedPoint.converged).toBe(true);
    expect(r.fixedPoint.theta[0]).toBe(0.2); // Q never changes c
    expect(r.contraction[0]!.verdict).toBe('refuted');
    const conf = r.subspaces.find((s) => s.name === 'confidence')!;
    expect(conf.nonDegenerate).toBe(false);
    expect(conf.kernelDim).toBe(1);
    // The reported spectrum is the whole spectrum of G_W: dim values, descending, from λ_max
    // down, and exactly kernelDim of them at or below the λ-tolerance.
    for (const s of r.subspaces) {
      expect(s.eigenvalues).toHaveLength(s.dim);
      expect(s.eigenvalues[0]).toBe(s.lambdaMax);
      expect(s.eigenvalues.every((v, i) => i === 0 || v <= s.eigenvalues[i - 1]!)).toBe(true);
      expect(s.eigenvalues.filter((v) => v <= s.tolerance).length).toBe(s.kernelDim);
    }
    // redundancy fails for every item (P_e raises c by α_e(1 − c) > 0), so DF_e is used
    expect(r.redundancy.every((x) => !x.holds && x.linearization === 'exact')).toBe(true);
    expect(r.coverage.find((c) => c.question === 'confidence')!.covered).toBe(false);
  });

  it('closed-form, zero-probability variant at the stopping state: blind items e2, e3 flagged', async () => {
    const sys = closedFormSystem({ probabilities: { e2: 0, e3: 0 } });
    const run = runRecursive(sys, { epsilon: 0.025, window: 2, maxSteps: 5, seed: 1 });
    const r = await certify(sys, { at: run.finalState });
    const cov = r.coverage.find((c) => c.question === 'confidence')!;
    expect(cov.blindItems).toEqual(['e2', 'e3']);
    // DF_e = [[0, 0], [ρ u α_e, −ρ(1 − c) α_e]] at (c, u) (derived from Eqs. 8–9): on W = c,
    // λ_min = Σ_e p_e (ρ u α_e)². Under P: (1/3)(3·0.05²); whole pool: (1/5)(3·0.05² + 0.35² + 0.40²).
    const [, u] = run.finalState;
    const lamP = (0.9 * u!) ** 2 * 0.05 ** 2;
    const lamPool = (0.9 * u!) ** 2 * ((3 * 0.05 ** 2 + 0.35 ** 2 + 0.4 ** 2) / 5);
    expect(Math.abs(cov.lambdaMin - lamP)).toBeLessThan(1e-8 * lamP);
    expect(Math.abs(cov.coverageRatio! - lamP / lamPool)).toBeLessThan(1e-6);
    expect(cov.covered).toBe(true);
    expect(cov.summary).toMatch(/blind items/);
  });

  it('gives the same decisions with autodiff (float32) as with central differences, and cross-checks them', async () => {
    const sys = rotationSystem(0.6, 0.6);
    const fd = await certify(sys, { subspaces: ['all', 'head'] });
    const ad = await certify(sys, { subspaces: ['all', 'head'], jacobian: 'autodiff' });
    expect(ad.jacobian.method).toBe('autodiff');
    expect(fd.jacobian.crossCheck!.agree).toBe(true);
    expect(ad.contraction[0]!.verdict).toBe('proved');
    fd.subspaces.forEach((s, i) => {
      const t = ad.subspaces[i]!;
      expect(t.nonDegenerate).toBe(s.nonDegenerate);
      expect(t.kernelDim).toBe(s.kernelDim);
      expect(Math.abs(t.lambdaMin - s.lambdaMin)).toBeLessThan(1e-5 * s.lambdaMax);
    });
    expect(fd.coverage.map((c) => c.question)).toEqual(['q1', 'q2']);
  });

  it('leaves the wasm arena as it found it (the streaming QR frees its blocks)', async () => {
    await init();
    const before = wasm().arena.bytesInUse;
    await certify(rotationSystem(0.6), { subspaces: ['all', 'head'] });
    expect(wasm().arena.bytesInUse).toBe(before);
  });

  it('rejects an unknown subspace and autodiff without tfjs forms, naming them', async () => {
    await expect(certify(closedFormSystem(), { subspaces: ['nope'] })).rejects.toThrow(/^subspace = "nope"/);
    const noTf = defineSystem({
      name: 'no-tf',
      dim: 1,
      consolidate: (t) => t,
      expand: (_, t) => t,
      evidence: [{ id: 'e', p: 1 }],
    });
    await expect(certify(noTf, { jacobian: 'autodiff' })).rejects.toThrow(/no-tf provides no consolidateTf/);
    await expect(certify(closedFormSystem(), { at: [0.1] })).rejects.toThrow(/^at = /);
  });

  it('linear G_W on a subspace matches the matrix products (end to end)', async () => {
    const n = 4;
    const U = randomOrthogonal(n, 3);
    const A: Mat = U.map((r) => r.map((v) => 0.6 * v));
    const items = [
      { id: 'e1', p: 0.25, B: randomMatrix(n, 9, 0.4) },
      { id: 'e2', p: 0.75, B: randomMatrix(n, 10, 0.4) },
    ];
    const sys = linearSystem({ A, items, theta0: [1, 1, 1, 1], subspaces: { head: [0, 1] } });
    const r = await certify(sys, { subspaces: ['head'], questions: [] });
    const s = r.subspaces[0]!;
    // G_W = Σ p_e (Σ_e W)ᵀ(Σ_e W), W = [e0 e1], Σ_e = A B_e − B_e A; eigenvalues of the 2×2
    const G = [
      [0, 0],
      [0, 0],
    ];
    for (const it of items) {
      const S = commutator(A, it.B);
      for (let i = 0; i < 2; i++)
        for (let j = 0; j < 2; j++) G[i]![j]! += it.p * S.reduce((acc, row) => acc + row[i]! * row[j]!, 0);
    }
    const tr = G[0]![0]! + G[1]![1]!;
    const det = G[0]![0]! * G[1]![1]! - G[0]![1]! * G[1]![0]!;
    const disc = Math.sqrt(tr * tr - 4 * det);
    const lmax = (tr + disc) / 2;
    const lmin = det / lmax; // stable form of (tr − disc)/2
    // Σ_e entries from central differences err by <= 32·eps^(2/3) (see commutator.test.ts), so
    // λ = σ² errs by <= 2σ·err: allow 1e-8 relative to λ_max.
    expect(Math.abs(s.lambdaMax - lmax)).toBeLessThan(1e-8 * lmax);
    expect(Math.abs(s.lambdaMin - lmin)).toBeLessThan(1e-8 * lmax);
    expect(s.nonDegenerate).toBe(lmin > s.tolerance);
  });
});
