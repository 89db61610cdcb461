import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { runRecursive } from '../../src/ordergap/algorithm1.js';
import { createRng, sampleIndex, seededNormals } from '../../src/ordergap/rng.js';
import { closedFormSystem } from '../../src/closedForm/system.js';
import { defineSystem } from '../../src/system/define.js';

/** Algorithm 1 unrolled by hand from the paper's pseudocode, sharing only the sampler. */
function handUnrolled(
  alphas: number[],
  rho: number,
  theta0: [number, number],
  epsilon: number,
  w: number,
  Tmax: number,
  seed: number,
) {
  const rng = createRng(seed);
  const p = alphas.map(() => 1 / alphas.length);
  let [c, u] = theta0;
  const B: number[] = [];
  for (let t = 0; t < Tmax; t++) {
    const i = sampleIndex(p, rng.next());
    const a = alphas[i]!;
    // Q(P_e(θ)) and P_e(Q(θ)) written out from Eqs. (8)–(9)
    const c1 = c + a * (1 - c);
    const qp = [c1, rho * (1 - c1) * u];
    const pq = [c + a * (1 - c), rho * (1 - c) * u];
    const omega = Math.hypot(qp[0]! - pq[0]!, qp[1]! - pq[1]!);
    [c, u] = qp as [number, number];
    B.push(omega);
    if (B.length >= w) {
      const mean = B.slice(-w).reduce((s, x) => s + x, 0) / w;
      if (mean <= epsilon) return { T: t + 1, c, u, B };
    }
  }
  return { T: Tmax, c, u, B };
}

describe('Algorithm 1', () => {
  fcTest.prop([
    fc.array(fc.double({ min: 0.001, max: 0.999, noNaN: true }), { minLength: 1, maxLength: 6 }),
    fc.double({ min: 0.01, max: 0.99, noNaN: true }),
    fc.double({ min: 0.001, max: 0.2, noNaN: true }),
    fc.integer({ min: 1, max: 4 }),
    fc.integer({ min: 1, max: 25 }),
    fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  ])(
    'agrees with a hand-unrolled loop (same stop step, same states, same Ω)',
    (alphas, rho, epsilon, w, Tmax, seed) => {
      const sys = closedFormSystem({ rho, alphas, theta0: [0.2, 0.8] });
      const run = runRecursive(sys, { epsilon, window: w, maxSteps: Tmax, seed });
      const ref = handUnrolled(alphas, rho, [0.2, 0.8], epsilon, w, Tmax, seed);
      expect(run.stop.step).toBe(ref.T);
      expect(run.stop.reason).toBe(
        ref.T < Tmax || (ref.B.length >= w && run.steps.at(-1)!.statistic! <= epsilon) ? 'order-gap' : 'budget',
      );
      expect(run.finalState[0]).toBe(ref.c);
      expect(run.finalState[1]).toBe(ref.u);
      // Ω via the overflow-safe distance vs Math.hypot: both within an ulp or two of |Δu|.
      run.steps.forEach((s, i) =>
        expect(Math.abs(s.omega - ref.B[i]!)).toBeLessThanOrEqual(2 * Number.EPSILON * ref.B[i]!),
      );
    },
  );

  it('same seed, same run; another seed, another sample path', () => {
    const sys = closedFormSystem({ alphas: [0.01, 0.02, 0.5, 0.03] });
    const opts = { epsilon: 1e-6, window: 3, maxSteps: 40 };
    const a = runRecursive(sys, { ...opts, seed: 42 });
    const b = runRecursive(sys, { ...opts, seed: 42 });
    expect(b).toEqual(a);
    const c = runRecursive(sys, { ...opts, seed: 43 });
    expect(c.steps.map((s) => s.evidence)).not.toEqual(a.steps.map((s) => s.evidence));
  });

  it('records probabilities when sampling and none for a sequence', () => {
    const sys = closedFormSystem();
    const s = runRecursive(sys, { epsilon: 0.01, window: 1, maxSteps: 3, seed: 1 });
    expect(s.steps.every((x) => x.probability === 0.2)).toBe(true);
    const q = runRecursive(sys, { epsilon: 0.01, window: 1, maxSteps: 2, sequence: ['e3', 'e3'] });
    expect(q.steps.map((x) => x.probability)).toEqual([null, null]);
  });

  it('ends with evidence-exhausted when a sequence is shorter than the budget', () => {
    const run = runRecursive(closedFormSystem(), { epsilon: 1e-9, window: 2, maxSteps: 9, sequence: ['e1', 'e2'] });
    expect(run.stop.reason).toBe('evidence-exhausted');
    expect(run.stop.step).toBe(2);
  });

  it('uses a state-dependent distribution at each step', () => {
    // P(·|θ) puts all mass on 'up' while θ < 3, then on 'stay'.
    const sys = defineSystem({
      name: 'counter',
      dim: 1,
      theta0: [0],
      consolidate: (t) => [t[0]!],
      expand: (e, t) => [e === 'up' ? t[0]! + 1 : t[0]!],
      evidence: (t) =>
        t[0]! < 3
          ? [
              { id: 'up', p: 1 },
              { id: 'stay', p: 0 },
            ]
          : [
              { id: 'up', p: 0 },
              { id: 'stay', p: 1 },
            ],
    });
    const run = runRecursive(sys, { epsilon: 1, window: 1, maxSteps: 5, rule: 'budget' });
    expect(run.steps.map((s) => s.evidence)).toEqual(['up', 'up', 'up', 'stay', 'stay']);
    expect(Array.from(run.finalState)).toEqual([3]);
  });

  it('rejects invalid options, naming the argument, before running anything', () => {
    const sys = closedFormSystem();
    const ok = { epsilon: 0.1, window: 2, maxSteps: 5 };
    expect(() => runRecursive(sys, { ...ok, epsilon: 0 })).toThrow(/^epsilon = 0: must be > 0/);
    expect(() => runRecursive(sys, { ...ok, epsilon: -1 })).toThrow(/^epsilon = -1/);
    expect(() => runRecursive(sys, { ...ok, epsilon: NaN })).toThrow(/^epsilon = NaN/);
    expect(() => runRecursive(sys, { ...ok, window: 0 })).toThrow(/^window = 0/);
    expect(() => runRecursive(sys, { ...ok, maxSteps: 0 })).toThrow(/^maxSteps = 0/);
    expect(() => runRecursive(sys, { ...ok, maxSteps: 2.5 })).toThrow(/^maxSteps = 2.5/);
    expect(() => runRecursive(sys, { ...ok, seed: -3 })).toThrow(/^seed = -3/);
    expect(() => runRecursive(sys, { ...ok, theta0: [0.1] })).toThrow(
      /^theta0 = Float64Array\(1\): must have length 2/,
    );
    expect(() => runRecursive(sys, { ...ok, theta0: [0.1, NaN] })).toThrow(/^theta0\[1\] = NaN/);
    expect(() => runRecursive(sys, { ...ok, sequence: ['e1', 'e9'] })).toThrow(/^sequence\[1\] = "e9"/);
    expect(() => runRecursive(sys, { ...ok, rule: 'never' as never })).toThrow(/^rule = "never"/);
  });

  it('records θ_t by default only while the Tmax + 1 states fit in 256 MiB; asked for more than memory holds, refuses first', () => {
    // d = 2^22: 11 states take 352 MiB, so none is kept unless asked; 4 states (96 MiB) are
    const d = 2 ** 22;
    const half = (t: Float64Array) => t.map((x) => x / 2);
    const big = defineSystem({
      name: 'big',
      dim: d,
      theta0: new Float64Array(d).fill(1),
      consolidate: half,
      expand: (_e, t) => t,
      evidence: [{ id: 'e', p: 1 }],
    });
    const run = (maxSteps: number, recordStates?: boolean) =>
      runRecursive(big, {
        epsilon: 1e-300,
        window: 1,
        maxSteps,
        ...(recordStates === undefined ? {} : { recordStates }),
      });
    expect(run(10).steps.every((s) => s.theta === undefined)).toBe(true);
    expect(run(3).steps.every((s) => s.theta?.length === d)).toBe(true);
    expect(() => run(1e6, true)).toThrow(/^recordStates = "1000000 steps of d = 4194304": too large/);
  });
});

describe('seeded RNG', () => {
  it('is deterministic and uniform-looking', () => {
    const a = createRng(7);
    const b = createRng(7);
    const xs = Array.from({ length: 20000 }, () => a.next());
    expect(xs.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => b.next()));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    // Mean of 20000 U(0,1): sd = sqrt(1/12/20000) ≈ 0.002; 5 sd.
    expect(Math.abs(xs.reduce((s, x) => s + x, 0) / xs.length - 0.5)).toBeLessThan(0.0102);
  });
  it('never samples a zero-probability item', () => {
    const p = [0, 0.5, 0, 0.5, 0];
    for (const u of [0, 0.25, 0.5, 0.75, 1 - 2 ** -53]) expect([1, 3]).toContain(sampleIndex(p, u));
  });
  it('rejects a bad seed', () => {
    expect(() => createRng(2 ** 32)).toThrow(/^seed = 4294967296/);
  });

  /** sfc32 seeded through splitmix32 (12 draws discarded), written out on plain numbers: the stream's definition. */
  function sfc32Stream(seed: number): () => number {
    let s = seed >>> 0;
    const splitmix = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    let [a, b, c, d] = [splitmix(), splitmix(), splitmix(), splitmix()];
    const next32 = () => {
      const t = (((a + b) >>> 0) + d) >>> 0;
      d = (d + 1) >>> 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) >>> 0;
      c = ((c << 21) | (c >>> 11)) >>> 0;
      c = (c + t) >>> 0;
      return t;
    };
    for (let i = 0; i < 12; i++) next32();
    return () => next32() / 4294967296;
  }

  fcTest.prop([fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 6 })])(
    'next and fill give the stream of sfc32 seeded through splitmix32, in order, however they are mixed',
    (seed, chunks) => {
      const rng = createRng(seed);
      const oracle = sfc32Stream(seed);
      for (const [k, n] of chunks.entries()) {
        const got =
          k % 2 === 0 ? Array.from(rng.fill(new Float64Array(n))) : Array.from({ length: n }, () => rng.next());
        expect(got).toEqual(Array.from({ length: n }, oracle));
      }
      expect(rng.next()).toBe(oracle());
    },
  );
});

describe('seededNormals', () => {
  it('is deterministic per seed and has mean ≈ 0, variance ≈ 1', () => {
    const a = seededNormals(3, 20001);
    expect(Array.from(a.slice(0, 7))).toEqual(Array.from(seededNormals(3, 7)));
    expect(Array.from(seededNormals(4, 7))).not.toEqual(Array.from(a.slice(0, 7)));
    const mean = a.reduce((s, x) => s + x, 0) / a.length;
    const variance = a.reduce((s, x) => s + (x - mean) ** 2, 0) / (a.length - 1);
    // Standard errors for n = 20001: mean 1/sqrt(n) ≈ 0.0071, variance sqrt(2/n) ≈ 0.010; 5 se each.
    expect(Math.abs(mean)).toBeLessThan(0.036);
    expect(Math.abs(variance - 1)).toBeLessThan(0.05);
  });
});
