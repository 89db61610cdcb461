import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { SEC92, closedFormOrderGap, closedFormSystem } from '../../src/closedForm/system.js';
import { orderGap } from '../../src/ordergap/orderGap.js';
import { runRecursive } from '../../src/ordergap/algorithm1.js';
import { windowedMean } from '../../src/stopping/window.js';
import { checkPoolAtStop } from '../../src/ordergap/poolCheck.js';
import { EPS } from '../util/compare.js';

const unit = fc.double({ min: 0, max: 1, noNaN: true });
const open01 = fc.double({ min: Number.MIN_VALUE, max: 1 - EPS / 2, noNaN: true });

describe('closed-form order-gap (Eq. 12)', () => {
  // Bound: the two orderings agree exactly on c; on u each is ρ(1−c')u or ρ(1−c)u with
  // relative rounding <= 6 eps (c' = c + α(1−c) carries <= 3 eps absolute, 1−c' then <= 4 eps,
  // two products 2 eps), the subtraction adds eps·Ω, and Eq. (12) itself rounds 4 times.
  // Total <= 14 eps·ρ·u: "a few ulps" of the size ρu of the terms whose difference Ω is.
  // Below the normal range the relative model fails: each of the ~16 roundings may instead err
  // by half the subnormal spacing, so the bound adds 16·2^-1074 (ρ = 1e-238, u = 4e-72 gives
  // ρu = 0 in f64 but Ω = 2^-1074).
  fcTest.prop([unit, unit, open01, open01])(
    'computed Ω equals ρα(1−c)u within 16 eps·ρ·u + 16·2^-1074',
    (c, u, alpha, rho) => {
      const sys = closedFormSystem({ rho, alphas: [alpha], theta0: [c, u] });
      const omega = orderGap(sys, [c, u], 'e1');
      const expected = closedFormOrderGap(c, u, alpha, rho);
      expect(Math.abs(omega - expected)).toBeLessThanOrEqual(16 * EPS * rho * u + 16 * Number.MIN_VALUE);
    },
  );

  fcTest.prop([unit, unit, open01, open01])('Ω >= 0', (c, u, alpha, rho) => {
    const sys = closedFormSystem({ rho, alphas: [alpha], theta0: [c, u] });
    expect(orderGap(sys, [c, u], 'e1')).toBeGreaterThanOrEqual(0);
  });

  it('Ω → 0 as c → 1, as u → 0 and as α → 0 (monotonically, at the rate of Eq. 12)', () => {
    const sys = (alpha: number) => closedFormSystem({ alphas: [alpha] });
    let prev = Infinity;
    for (const c of [0.5, 0.9, 0.99, 0.999, 1]) {
      const o = orderGap(sys(0.3), [c, 0.7], 'e1');
      expect(o).toBeLessThan(prev);
      prev = o;
    }
    expect(orderGap(sys(0.3), [1, 0.7], 'e1')).toBe(0);
    expect(orderGap(sys(0.3), [0.4, 0], 'e1')).toBe(0);
    const tiny = orderGap(sys(1e-12), [0.4, 0.7], 'e1');
    expect(tiny).toBeLessThan(1e-11);
    expect(tiny).toBeGreaterThan(0);
  });

  it('Ω is linear in u and in α (Eq. 12)', () => {
    const a = orderGap(closedFormSystem({ alphas: [0.2] }), [0.3, 0.4], 'e1');
    const b = orderGap(closedFormSystem({ alphas: [0.2] }), [0.3, 0.8], 'e1');
    const c = orderGap(closedFormSystem({ alphas: [0.4] }), [0.3, 0.4], 'e1');
    expect(Math.abs(b - 2 * a)).toBeLessThanOrEqual(16 * EPS * b);
    expect(Math.abs(c - 2 * a)).toBeLessThanOrEqual(16 * EPS * c);
  });
});

describe('Sec. 9.2 trajectory: the numbers the paper states (rounded to 3 decimals there)', () => {
  const sys = closedFormSystem();
  const run = runRecursive(sys, {
    epsilon: SEC92.epsilon,
    window: SEC92.window,
    maxSteps: SEC92.maxSteps,
    sequence: SEC92.sequence,
  });
  const budget = runRecursive(sys, { ...SEC92, sequence: SEC92.sequence, rule: 'budget' });
  const r3 = (x: number) => Math.round(x * 1000) / 1000;

  it('paper: θ1 = (0.240, 0.547), Ω1 = 0.029', () => {
    expect(r3(run.steps[0]!.theta![0]!)).toBe(0.24);
    expect(r3(run.steps[0]!.theta![1]!)).toBe(0.547);
    expect(r3(run.steps[0]!.omega)).toBe(0.029);
  });
  it('paper: Algorithm 1 halts at step 4 with Ω̂_{4,2} = 0.022 < 0.025 and c4 = 0.718', () => {
    expect(run.stop.reason).toBe('order-gap');
    expect(run.stop.step).toBe(4);
    expect(r3(run.steps.at(-1)!.statistic!)).toBe(0.022);
    expect(run.steps.at(-1)!.statistic!).toBeLessThan(0.025);
    expect(r3(run.finalState[0]!)).toBe(0.718);
  });
  it('paper: the fixed budget Tmax = 5 reaches c5 = 0.732, a change of 0.014', () => {
    expect(budget.stop.reason).toBe('budget');
    expect(budget.stop.step).toBe(5);
    expect(r3(budget.finalState[0]!)).toBe(0.732);
    expect(r3(budget.finalState[0]! - run.finalState[0]!)).toBe(0.014);
  });
  it('the stop is the first step where the test holds (not before)', () => {
    for (const s of run.steps.slice(0, -1)) expect(s.statistic === null || s.statistic > SEC92.epsilon).toBe(true);
  });
  it('every Ω_t equals Eq. (12) at θ_{t−1}', () => {
    let prev = run.theta0;
    run.steps.forEach((s, i) => {
      const e = closedFormOrderGap(prev[0]!, prev[1]!, SEC92.alphas[i]!, SEC92.rho);
      expect(Math.abs(s.omega - e)).toBeLessThanOrEqual(16 * EPS * SEC92.rho * prev[1]!);
      prev = s.theta!;
    });
  });
  it('coverage failure: with e2, e3 at probability 0 the run stops blind and the pool check names them unreachable', () => {
    const blindSys = closedFormSystem({ probabilities: { e2: 0, e3: 0 } });
    for (const seed of [0, 1, 2, 17]) {
      const blind = runRecursive(blindSys, { epsilon: 0.025, window: 2, maxSteps: 5, seed });
      expect(blind.steps.every((s) => s.evidence !== 'e2' && s.evidence !== 'e3')).toBe(true);
      expect(blind.stop.reason).toBe('order-gap');
      // Far from the paper's c4 = 0.718: the stop is not convergence.
      expect(blind.finalState[0]!).toBeLessThan(0.3);
      const pool = checkPoolAtStop(blindSys, blind.finalState, 0.025);
      expect(pool.verdict).toBe('unreachable');
      expect(pool.unreachableItems).toEqual(['e2', 'e3']);
    }
    // At the true stopping state of the full run no unreachable item would still move the state.
    expect(checkPoolAtStop(sys, run.finalState, 0.025).verdict).toBe('reachable');
  });
});

describe('windowed mean (Eq. 3)', () => {
  fcTest.prop([
    fc.array(fc.double({ min: 0, max: 10, noNaN: true }), { minLength: 1, maxLength: 30 }),
    fc.integer({ min: 1, max: 8 }),
  ])('equals (1/w)·sum of the last w values, null before w values', (values, w) => {
    const m = windowedMean(values, w);
    if (values.length < w) expect(m).toBeNull();
    else {
      let s = 0;
      for (let i = values.length - w; i < values.length; i++) s += values[i]!;
      expect(m).toBe(s / w);
    }
  });
  it('rejects bad windows and values, naming them', () => {
    expect(() => windowedMean([1], 0)).toThrow(/^window = 0/);
    expect(() => windowedMean([1], 1.5)).toThrow(/^window = 1.5/);
    expect(() => windowedMean([1, NaN], 1)).toThrow(/^values\[1\] = NaN/);
    expect(() => windowedMean([1, -1], 1)).toThrow(/^values\[1\] = -1/);
  });
});
