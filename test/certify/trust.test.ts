/**
 * Certification numbers a researcher can trust: per-question rows independent of what else is
 * asked, verdicts with their sensitivity to the fixed point's error, expanding and
 * non-converging maps as verdicts, declared bounds that the search refutes, operator hygiene,
 * and defaults that certify something.
 */
import { describe, expect, it } from 'vitest';
import { certify, type CertifyOptions } from '../../src/certify/certify.js';
import { closedFormSystem } from '../../src/closedForm/system.js';
import { referenceGraphSystem } from '../../src/graph/system.js';
import { renderCertifyText, type CertifyReport } from '../../src/report/certify.js';
import { defineSystem } from '../../src/system/define.js';
import type { OperatorSystemSpec } from '../../src/system/types.js';
import { ArgumentError } from '../../src/util/errors.js';
import { init } from '../../src/wasm/module.js';

const text = (r: Awaited<ReturnType<typeof certify>>) =>
  renderCertifyText({ ...r, fixedPoint: { ...r.fixedPoint }, source: 'test' } as CertifyReport);

/** A 2-D system with the given Q; P_e pulls coordinate 0 half-way to 1 ('a') or leaves θ ('b'). */
function plain(name: string, consolidate: OperatorSystemSpec['consolidate'], extra: Partial<OperatorSystemSpec> = {}) {
  return defineSystem({
    name,
    dim: 2,
    theta0: [0.5, 0.25],
    consolidate,
    expand: (e, t) => (e === 'a' ? [0.5 * t[0]! + 0.5, t[1]!] : [t[0]!, t[1]!]),
    evidence: [
      { id: 'a', p: 0.5 },
      { id: 'b', p: 0.5 },
    ],
    ...extra,
  });
}

describe('per-question coverage is computed for the question it is reported for', () => {
  // cheap options: the contraction search is not what is compared here
  const base: CertifyOptions = { contractionSubspaces: ['confidence'], samples: 2, crossCheckColumns: 0 };
  it('the same rows whatever subspaces and other questions are asked, in any order', async () => {
    await init();
    const sys = referenceGraphSystem();
    const rows = (r: Awaited<ReturnType<typeof certify>>) => Object.fromEntries(r.coverage.map((c) => [c.question, c]));
    const ref = rows(await certify(sys, base));
    expect(Object.keys(ref)).toEqual(['q:author', 'q:birthplace', 'q:country']);
    const variants: CertifyOptions[] = [
      { subspaces: ['footprint'] },
      { subspaces: ['attributes', 'confidence'] },
      { subspaces: ['confidence'], questions: ['q:country', 'q:birthplace'] },
      { subspaces: ['footprint', 'confidence', 'attributes'], questions: ['q:birthplace', 'q:author', 'q:country'] },
    ];
    for (const v of variants) {
      const got = rows(await certify(sys, { ...base, ...v }));
      for (const [q, row] of Object.entries(got)) expect(row, `${q} under ${JSON.stringify(v)}`).toEqual(ref[q]);
    }
    // q:birthplace: only e04 writes its coordinates (the other items' shares are rounding)
    expect(ref['q:birthplace']!.topContributors[0]!.evidence).toBe('e04');
    expect(ref['q:birthplace']!.topContributors[0]!.share).toBeGreaterThan(1 - 1e-9);
  }, 120_000);

  it('one W_q per name: --question q:author is the default table’s item basis; its coordinates are q:author/coordinates', async () => {
    await init();
    const sys = referenceGraphSystem();
    const def = (await certify(sys, base)).coverage.find((c) => c.question === 'q:author')!;
    const asked = await certify(sys, { ...base, questions: ['q:author', 'q:author/coordinates'] });
    const [items, coords] = asked.coverage;
    expect(items).toEqual(def);
    expect(items!.basis).toBe('item directions');
    expect(items!.dim).toBe(3); // three items write q:author
    expect(coords!.question).toBe('q:author/coordinates');
    expect(coords!.basis).toBe('declared coordinates');
    expect(coords!.dim).toBe(sys.questions['q:author']!.length);
    expect(coords!.dim).not.toBe(items!.dim);
    await expect(certify(sys, { ...base, questions: ['q:nope'] })).rejects.toThrow(/q:author\/coordinates/);
  }, 120_000);
});

describe('verdicts carry their sensitivity to the fixed point’s error', () => {
  // closed form: Σ_e e_c = (0, ρ α_e u) vanishes at the fixed points (c, 0), so the confidence
  // block is degenerate at θ*; at an iterate with u ≠ 0 its σ is ρ·α·u — above the tolerance
  // once the iteration stops early enough.
  it('loosening the fixed-point tolerance from 1e-13 to 1e-8 makes the verdict sensitive, not non-degenerate', async () => {
    const tight = await certify(closedFormSystem(), { fixedPoint: { tolerance: 1e-13 } });
    const conf = tight.subspaces.find((s) => s.name === 'confidence')!;
    expect(conf.verdict).toBe('DEGENERATE');
    expect(conf.sensitivity.sensitive).toBe(false);
    expect(conf.sensitivity.fixedPointBand).toBeGreaterThan(0);
    const loose = await certify(closedFormSystem(), { fixedPoint: { tolerance: 1e-8 } });
    const c8 = loose.subspaces.find((s) => s.name === 'confidence')!;
    expect(c8.nonDegenerate).toBe(true); // what the rank alone says at this iterate
    expect(c8.verdict).toBe('sensitive');
    expect(c8.sensitivity.decidedBy).toMatch(/iterate the fixed point further/);
    // the band is the first-order change of σ = ρ α u over ‖θ − θ*‖ ≈ u: about σ itself
    expect(c8.sensitivity.fixedPointBand! / c8.sensitivity.criticalSigma).toBeGreaterThan(0.5);
    expect(text(loose)).toMatch(/confidence is sensitive: iterate the fixed point further/);
    // a verdict far from its tolerance stays robust
    expect(loose.subspaces.find((s) => s.name === 'uncertainty')!.verdict).toBe('non-degenerate');
  });

  it('at a given state there is no fixed-point band; the Jacobian band is r·γ', async () => {
    const r = await certify(closedFormSystem(), { at: [0.2, 0.5] });
    for (const s of r.subspaces) {
      expect(s.sensitivity.fixedPointBand).toBeNull();
      expect(s.sensitivity.jacobianBand).toBeCloseTo(
        r.jacobian.relativeAccuracy * r.jacobian.normDQ * r.jacobian.normDP,
        20,
      );
    }
  });
});

describe('a constant map (Σ_e = 0 exactly, every σ and tolerance 0)', () => {
  it('certifies: every subspace degenerate, none sensitive (there is no error band to flip it)', async () => {
    const half = () => [0.5, 0.5];
    const constant = defineSystem({
      evidence: ['a', 'b'].map((id) => ({ id, p: 0.5 })),
      subspaces: { x: [0], y: [1] },
      questions: { q: [0] },
      consolidate: half,
      expand: half,
      theta0: half(),
      dim: 2,
      name: 'constant',
    });
    const r = await certify(constant, { samples: 4, crossCheckColumns: 0 });
    for (const s of r.subspaces) {
      expect(s.verdict, s.name).toBe('DEGENERATE');
      expect(s.sensitivity.sensitive).toBe(false);
    }
    expect(renderCertifyText(r as CertifyReport)).toMatch(/DEGENERATE/);
  });
});

describe('contraction: expanding and non-converging maps, refuted bounds, uniqueness', () => {
  it.each([
    ['2θ', (t: Float64Array) => [2 * t[0]!, 2 * t[1]!]],
    ['θ² + 1', (t: Float64Array) => [t[0]! * t[0]! + 1, t[1]! * t[1]! + 1]],
  ])('Q(θ) = %s is the verdict "not contractive" with the diverging iterates, not an error', async (_n, q) => {
    const r = await certify(plain('expanding', q));
    expect(r.fixedPoint.diverged).toBe(true);
    expect(r.contraction[0]!.verdict).toBe('refuted');
    const norms = r.contraction[0]!.divergingIterates!;
    expect(norms.length).toBeGreaterThan(2);
    expect(norms.at(-1)).toBe(Infinity);
    expect(norms[norms.length - 2]!).toBeGreaterThan(1e100);
    expect(r.state.kind).not.toBe('fixed point');
    expect(text(r)).not.toMatch(/fixed point =/);
    expect(text(r)).toMatch(/DIVERGED/);
    expect(r.uniqueness.established).toBe(false);
  });

  it('a non-converged iterate is never printed as "fixed point"', async () => {
    const r = await certify(
      plain('slow', (t) => [0.99 * t[0]!, 0.99 * t[1]!]),
      { fixedPoint: { maxIterations: 3 } },
    );
    expect(r.fixedPoint.converged).toBe(false);
    expect(r.state.kind).toMatch(/^last iterate of Q \(NOT a fixed point/);
    expect(text(r)).toMatch(/state: last iterate of Q \(NOT a fixed point/);
    expect(text(r)).not.toMatch(/fixed point =/);
  });

  it('a declared Lipschitz bound the search refutes is flagged in the text and not used for ‖θ − θ*‖', async () => {
    const lying = plain('lying', (t) => [0.9 * t[0]!, 0.9 * t[1]!], {
      lipschitz: { all: { bound: 0.5, derivation: 'wrong on purpose' } },
    });
    const r = await certify(lying);
    expect(r.contraction[0]!.analyticBoundRefuted).toBe(true);
    expect(r.contraction[0]!.verdict).not.toBe('proved');
    expect(r.fixedPoint.rho).toBeNull();
    expect(r.fixedPoint.aPosterioriBound).toBeNull();
    expect(text(r)).toMatch(/declared Lipschitz bound 0\.5 is REFUTED/);
    // an honest bound is used and makes the fixed point unique in the box
    const honest = await certify(
      plain('honest', (t) => [0.9 * t[0]!, 0.9 * t[1]!], { lipschitz: { all: { bound: 0.9, derivation: 'linear' } } }),
    );
    expect(honest.contraction[0]!.analyticBoundRefuted).toBe(false);
    expect(honest.fixedPoint.rho).toBe(0.9);
    // a declared bound is not a proof: without an interval or tfjs form uniqueness is not established
    expect(honest.contraction[0]!.verdict).toBe('undecided');
    expect(honest.uniqueness.established).toBe(false);
  });

  it('uniqueness is stated as not established, with the start, when Q is not certified', async () => {
    const r = await certify(closedFormSystem());
    expect(r.uniqueness.established).toBe(false);
    expect(r.uniqueness.statement).toMatch(/reached from θ0 after \d+ iterations/);
    expect(text(r)).toMatch(/Uniqueness of the fixed point: not established/);
  });

  it('the whole-space search covers a block’s declared box, not only a neighbourhood of θ*', async () => {
    // slope 0.5 near the fixed point 0, slope 1.5 for x > 2: contractive locally, not on [-5, 5]
    const sys = plain('kinked', (t) => [0.5 * t[0]! + Math.max(0, t[0]! - 2), 0.5 * t[1]!], {
      theta0: [0.5, 0.5],
      subspaces: { x: [0], y: [1] },
      certification: { boxes: { x: { lower: -5, upper: 5 } } },
    });
    const r = await certify(sys, { contractionSubspaces: ['all'] });
    expect(r.contraction[0]!.searchBox).toMatch(/declared box of 'x'/);
    expect(r.contraction[0]!.verdict).toBe('refuted');
    expect(r.contraction[0]!.empiricalLowerBound).toBeGreaterThan(1);
  });

  it('the search reports its budget and starts the ascent from several pairs', async () => {
    const r = await certify(closedFormSystem());
    const b = r.contraction[0]!.budget;
    expect(b.starts).toBe(3);
    expect(b.evaluations).toBe(r.contraction[0]!.evaluations);
    expect(b.evaluations).toBeGreaterThanOrEqual(2 * (b.samples + b.probes));
  });
});

describe('operator hygiene: operators get fresh inputs', () => {
  it('an operator that returns its input (t => t) has ‖DQ‖ = 1', async () => {
    const r = await certify(plain('identity', (t) => t));
    expect(r.contraction[0]!.localNorm).toBeCloseTo(1, 9);
    expect(r.jacobian.normDQ).toBeCloseTo(1, 9);
  });

  it('an operator that mutates its input gives the same fixed point as one that does not', async () => {
    const inPlace = plain('in-place', (t) => {
      t[0] = 0.5 * t[0]! + 0.1;
      t[1] = 0.5 * t[1]!;
      return t;
    });
    const pure = plain('pure', (t) => [0.5 * t[0]! + 0.1, 0.5 * t[1]!]);
    const a = await certify(inPlace);
    const b = await certify(pure);
    expect(a.fixedPoint.theta[0]).toBeCloseTo(0.2, 12);
    expect(Array.from(a.fixedPoint.theta)).toEqual(Array.from(b.fixedPoint.theta));
    expect(a.contraction[0]!.localNorm).toBeCloseTo(0.5, 9);
    const x = Float64Array.of(0.3, 0.4);
    inPlace.consolidate(x);
    expect(Array.from(x)).toEqual([0.3, 0.4]);
  });
});

describe('defaults that certify something', () => {
  it('no declared subspaces (the README example): all coordinates, and the report says so', async () => {
    const mine = defineSystem({
      name: 'mine',
      dim: 2,
      theta0: [0, 1],
      consolidate: (t) => [t[0]!, 0.5 * t[1]!],
      expand: (e, t) => [t[0]! + (e === 'a' ? 0.1 : 0), t[1]!],
      evidence: [
        { id: 'a', p: 0.5 },
        { id: 'b', p: 0.5 },
      ],
    });
    const r = await certify(mine);
    expect(r.subspaces.map((s) => s.name)).toEqual(['all']);
    expect(r.subspaces[0]!.dim).toBe(2);
    expect(r.subspaceChoice).toMatch(/declares no subspaces: all d = 2 coordinates/);
    expect(r.notes.join('\n')).toMatch(/declares no subspaces/);
  });

  it('no declared subspaces and d above maxWholeSpace: the union of the evidence footprints', async () => {
    const d = 40;
    const sys = defineSystem({
      name: 'wide',
      dim: d,
      theta0: new Array<number>(d).fill(0.5),
      consolidate: (t) => Array.from(t, (x) => 0.5 * x),
      expand: (e, t) => {
        const y = Array.from(t);
        const j = e === 'a' ? 3 : 7;
        y[j] = 0.5 * y[j]! + 0.5;
        return y;
      },
      evidence: [
        { id: 'a', p: 0.5 },
        { id: 'b', p: 0.5 },
      ],
      linearization: { footprint: (e) => (e === 'a' ? [3] : [7]) },
    });
    const r = await certify(sys, { maxWholeSpace: 10 });
    expect(r.subspaces.map((s) => [s.name, s.dim])).toEqual([['footprints', 2]]);
    expect(r.subspaceChoice).toMatch(/union of the evidence footprints \(2 coordinates\)/);
  });

  it('an empty subspace is an error naming it', async () => {
    const sys = plain('with-empty', (t) => [0.5 * t[0]!, 0.5 * t[1]!], { subspaces: { nothing: [], x: [0] } });
    await expect(certify(sys, { subspaces: ['nothing'] })).rejects.toThrow(ArgumentError);
    await expect(certify(sys, { subspaces: ['nothing'] })).rejects.toThrow(/nothing.*empty \(0-dimensional\)/);
    await expect(certify(sys)).rejects.toThrow(/nothing/); // declared, so decided by default
    await expect(certify(sys, { subspaces: [{ name: 'none', coordinates: [] }] })).rejects.toThrow(/none.*empty/);
  });
});
