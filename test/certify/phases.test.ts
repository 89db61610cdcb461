/**
 * The phases of `certify` on their own (src/certify/plan.ts, phases.ts, decision.ts): the plan
 * refuses bad options before any evaluation of Q, the global scale is ‖DQ‖·max‖DP_e‖ of the
 * Jacobians, the fixed-point band exists only where the state is an iterate of Q, and the
 * decision skips what it says it skips. End-to-end behaviour is in certify.test.ts and trust.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { Linearization, measureRedundancy } from '../../src/certify/commutator.js';
import { DecisionTimings, decideSubspaces, verdictNotes } from '../../src/certify/decision.js';
import { findFixedPoint } from '../../src/certify/fixedPoint.js';
import { fixedPointBand, globalScale, wholeSpaceNorm } from '../../src/certify/phases.js';
import { planCertification, questionsAt } from '../../src/certify/plan.js';
import { closedFormSystem } from '../../src/closedForm/system.js';
import { svdvals } from '../../src/linalg/api.js';
import { defineSystem } from '../../src/system/define.js';
import type { OperatorSystem } from '../../src/system/types.js';
import { init } from '../../src/wasm/module.js';
import { linearSystem, matvec, randomMatrix, type Mat } from './linearSystems.js';
import { consolidateJacobian } from '../../src/linearize/systemJacobians.js';
import { consolidatedState } from '../graph/linearisation/fixtures.js';

/** FD relative accuracy eps^(2/3) ≈ 3.7e-11 with room: the Jacobians of affine maps are exact up to rounding. */
const FD_TOL = 1e-9;

const fd = { method: 'fd' as const };

function counted(n = 3): { system: OperatorSystem; calls: () => number } {
  let calls = 0;
  const A = randomMatrix(n, 4, 0.3);
  const system = defineSystem({
    name: 'counted',
    dim: n,
    theta0: new Array<number>(n).fill(0.5),
    consolidate: (t) => (calls++, matvec(A, t)),
    expand: (_e, t) => Array.from(t),
    evidence: [{ id: 'e', p: 1 }],
    subspaces: { head: [0] },
  });
  return { system, calls: () => calls };
}

/** Q(x) = [[a, b], [0, c]] x + 0 and one item P_e(x) = [[1, q], [0, 1]] x, from θ0 (default (0.5, 0.5)). */
function upperTriangular(a: number, b: number, c: number, q: number, theta0?: number[]) {
  const A: Mat = [
    [a, b],
    [0, c],
  ];
  return linearSystem({
    A,
    items: [
      {
        id: 'e',
        p: 1,
        B: [
          [1, q],
          [0, 1],
        ],
      },
    ],
    ...(theta0 ? { theta0 } : {}),
  });
}

const spectralNorm = (A: Mat) => svdvals(A.flat(), A.length, A.length)[0]!;

describe('plan', () => {
  it('refuses a bad option before Q is evaluated once, naming it', async () => {
    const { system, calls } = counted();
    await expect(planCertification(system, { subspaces: ['nope'] })).rejects.toThrow(/^subspace = "nope"/);
    await expect(planCertification(system, { jacobian: 'exact' as 'fd' })).rejects.toThrow(/^jacobian = "exact"/);
    await expect(planCertification(system, { linearization: 'x' as 'auto' })).rejects.toThrow(/^linearization = "x"/);
    await expect(planCertification(system, { from: 'middle' as 'stop' })).rejects.toThrow(/^from = "middle"/);
    await expect(planCertification(system, { at: [1] })).rejects.toThrow(/^at = /);
    await expect(planCertification(system, { jacobian: 'autodiff' })).rejects.toThrow(/consolidateTf/);
    expect(calls()).toBe(0);
  });

  it('chooses what to decide and the contraction blocks, saying why', async () => {
    const { system } = counted();
    const declared = await planCertification(system, {});
    expect(declared.subspaces.map((s) => s.name)).toEqual(['head']);
    expect(declared.subspaceChoice).toBe('every subspace counted declares');
    expect(declared.notes).toEqual([]);
    // the declared blocks asked for are checked for contraction with 'all'
    expect(declared.contraction.blocks).toEqual(['all', 'head']);
    const asked = await planCertification(system, { subspaces: ['all'], contractionSubspaces: ['head'] });
    expect(asked.subspaceChoice).toBe('as asked');
    expect(asked.contraction.blocks).toEqual(['head']);
    const none = await planCertification(closedFormSystem(), {});
    expect(none.fixedPoint).toBeUndefined();
    expect(none.at).toBeUndefined();
    const atStop = await planCertification(closedFormSystem(), { at: 'stop' });
    expect(atStop.at).toHaveLength(2);
    expect(atStop.stateNote).toMatch(/^where Algorithm 1 stopped \(step \d+, /);
  });

  it('questions at θ: a W_q no direction spans is left out with a note', () => {
    const { system } = counted();
    const { questions, notes } = questionsAt(
      system,
      () => [
        { name: 'seen', coordinates: [1] },
        { name: 'unseen', vectors: [] },
      ],
      new Float64Array(3),
    );
    expect(questions.map((q) => [q.spec.name, q.basis])).toEqual([['seen', 'given']]);
    expect(notes).toEqual([expect.stringMatching(/no direction spans W_q for unseen/)]);
    // no questions declared: the declared subspaces stand in, noted
    const standIns = questionsAt(system, undefined, new Float64Array(3));
    expect(standIns.questions.map((q) => [q.spec.name, q.source])).toEqual([['head', 'subspace']]);
    expect(standIns.notes[0]).toMatch(/declares no questions/);
  });
});

describe('linearisation: the global scale and the fixed-point band', () => {
  it('‖DQ‖ and max‖DP_e‖ are the spectral norms of A and the B_e (exact for d <= 1024)', async () => {
    await init();
    const A = randomMatrix(5, 11, 0.4);
    const items = [
      { id: 'a', p: 0.5, B: randomMatrix(5, 12, 0.5) },
      { id: 'b', p: 0.5, B: randomMatrix(5, 13, 0.9) },
    ];
    const sys = linearSystem({ A, items });
    const theta = Float64Array.of(0.1, 0.2, 0.3, 0.4, 0.5);
    const lin = new Linearization(sys, theta, fd);
    try {
      const norm = wholeSpaceNorm(lin.DQ, 5, 0);
      expect(norm.kind).toBe('exact');
      expect(Math.abs(norm.norm - spectralNorm(A))).toBeLessThan(FD_TOL * spectralNorm(A));
      const scale = globalScale(sys, lin, sys.evidenceAt(theta), norm.norm, { method: 'fd', seed: 0 });
      const maxB = Math.max(...items.map((it) => spectralNorm(it.B)));
      expect(Math.abs(scale.normDP - maxB)).toBeLessThan(FD_TOL * maxB);
      expect(scale.relativeAccuracy).toBe(lin.relativeAccuracy);
      expect(scale.source).toMatch(/central differences/);
    } finally {
      lin.release();
    }
  });

  it('the band exists only at an iterate of Q: none at a given state; δ from ρ or from the observed rate', async () => {
    await init();
    const sys = upperTriangular(0.5, 0.1, 0.5, 0, [1, 1]);
    const fp = findFixedPoint(sys, { tolerance: 1e-6 });
    const lin = new Linearization(sys, fp.theta, fd);
    try {
      expect(fixedPointBand(sys, lin, fd, fp, true).fpError).toBeNull();
      const rate = fixedPointBand(sys, lin, fd, fp, false);
      expect(rate.fpError!.distanceKind).toBe('estimate from the observed rate');
      expect(rate.fpError!.distance).toBe(fp.residual / (1 - fp.observedRate!));
      // the shifted state is θ − h·u, h = 1e-5·max(1, ‖θ‖_∞), u the unit residual direction
      expect(rate.fpError!.step).toBe(1e-5);
      const moved = Math.hypot(...Array.from(rate.fpError!.shifted.theta, (x, i) => x - fp.theta[i]!));
      expect(Math.abs(moved - 1e-5)).toBeLessThan(1e-15);
      rate.fpError!.shifted.release();
      const withRho = findFixedPoint(sys, { tolerance: 1e-6, rho: 0.6 });
      const bound = fixedPointBand(sys, lin, fd, withRho, false);
      expect(bound.fpError!.distanceKind).toBe('a-posteriori bound');
      expect(bound.fpError!.distance).toBe(withRho.aPosterioriBound);
      bound.fpError!.shifted.release();
      const unknown = fixedPointBand(sys, lin, fd, { ...fp, observedRate: 1.5 }, false);
      expect(unknown.fpError).toBeNull();
      expect(unknown.notes[0]).toMatch(/‖θ−θ\*‖ unknown .*observed rate 1\.50/);
    } finally {
      lin.release();
    }
  });
});

describe('the shifted linearisation on the reference graph', () => {
  it('takes DQ at the shifted state from DQ(θ) (near): the operator built there, bit for bit', async () => {
    const { sys, theta: start } = await consolidatedState();
    const fp = findFixedPoint(sys, { theta0: start, tolerance: 1e-9 });
    const lin = new Linearization(sys, fp.theta, fd);
    const band = fixedPointBand(sys, lin, fd, fp, false);
    const shifted = band.fpError!.shifted;
    try {
      const x = shifted.theta;
      using direct = consolidateJacobian(sys, x, fd) as Disposable & ReturnType<typeof consolidateJacobian>;
      const { edgeOffset } = sys.scenario.shape;
      for (const j of [0, 5, edgeOffset - 1, edgeOffset, edgeOffset + 3, x.length - 1])
        expect(shifted.DQ.column(j)).toEqual(direct.column(j));
      // the shift moves the node block only (Q copies the edges): no edge rows rebuilt from x
      for (let i = edgeOffset; i < x.length; i++) if (!Object.is(x[i], fp.theta[i])) throw new Error(`edge ${i} moved`);
    } finally {
      shifted.release();
      lin.release();
    }
  });
});

describe('decision', () => {
  it("skips 'all' above maxWholeSpace with a note; the notes name sensitive verdicts", async () => {
    await init();
    const sys = upperTriangular(0.5, 0.2, 0.3, 0.5);
    const theta = Float64Array.of(0.2, 0.1);
    const lin = new Linearization(sys, theta, fd);
    try {
      const pool = sys.evidenceAt(theta);
      const scale = { normDQ: 1, normDP: 1, relativeAccuracy: lin.relativeAccuracy, source: 'test', remedy: 'none' };
      const inputs = {
        system: sys,
        lin,
        pool,
        redundancy: measureRedundancy(lin, pool),
        scale,
        fpError: null,
        seed: 0,
        progress: () => undefined,
      };
      const timings = new DecisionTimings();
      const all = { name: 'all', coordinates: [0, 1] };
      const out = decideSubspaces(inputs, [all, { name: 'x1', coordinates: [1] }], 1, timings);
      expect(out.subspaces.map((s) => s.name)).toEqual(['x1']);
      expect(out.notes).toEqual(["subspace 'all' (d = 2) skipped: larger than maxWholeSpace"]);
      expect(Object.keys(timings.ms)).toEqual(['columns', 'gramian', 'sensitivity', 'gramianMatrix']);
      const sensitive = { ...out.subspaces[0]!, verdict: 'sensitive' as const };
      expect(verdictNotes([sensitive], [])[0]).toMatch(/^1 verdict\(s\) are sensitive .*: x1$/);
      expect(verdictNotes(out.subspaces, [])).toEqual([]);
    } finally {
      lin.release();
    }
  });
});
