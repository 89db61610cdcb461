import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { runRecursive } from '../../src/ordergap/algorithm1.js';
import { evaluateOrderGap, orderGap } from '../../src/ordergap/orderGap.js';
import { answerIsExtractor } from '../../src/lab/extractors.js';
import { buildStream, prepareItem } from '../../src/lab/observations.js';
import {
  EMPTY_EVIDENCE,
  answerChangeBound,
  answerEvidence,
  consolidatedAnswer,
  pluralitySet,
  voteStateSystem,
} from '../../src/lab/voteSystem.js';
import { OrderGapRule } from '../../src/stopping/orderGapRule.js';
import { EPS, expectCloseInEps } from '../util/compare.js';

const CANDS = ['a', 'b', 'c', 'd'];
const idOf = (i: number): string => (i < 0 ? EMPTY_EVIDENCE : answerEvidence(CANDS[i]!));

describe('vote-state system', () => {
  it('hand case: first vote, agreeing vote, dissenting vote', () => {
    const sys = voteStateSystem(['paris', 'lyon'], { lambda: 0.5 });
    let th = sys.theta0!;
    expect(consolidatedAnswer(sys, th)).toBeNull(); // uniform: undecided
    // first vote: v = 1_paris, M {paris, lyon} → {paris}: Ω = ‖1_e − uniform‖ = √(1/4 + 1/4)
    const e1 = evaluateOrderGap(sys, th, answerEvidence('paris'));
    expectCloseInEps(e1.omega, Math.SQRT1_2, 4);
    th = e1.expandThenConsolidate;
    expect(Array.from(th)).toEqual([1, 0, 1, 0, 0.5]); // v, c = (1−λ)v + λ1_paris, u = 1/2
    expect(orderGap(sys, th, answerEvidence('paris'))).toBe(0); // agrees with a unanimous tally
    th = sys.consolidate(sys.expand(answerEvidence('paris'), th)); // u = 1/3
    // dissent: M stays {paris}; Ω = (1 − λ)·u·‖1_lyon − 1_paris‖ = 0.5 · (1/3) · √2
    expectCloseInEps(orderGap(sys, th, answerEvidence('lyon')), (0.5 * Math.SQRT2) / 3, 8);
    // an empty sample changes nothing
    expect(orderGap(sys, th, EMPTY_EVIDENCE)).toBe(0);
    expect(consolidatedAnswer(sys, th)).toBe('paris');
  });

  fcTest.prop([
    fc.array(fc.integer({ min: -1, max: 3 }), { minLength: 1, maxLength: 60 }),
    fc.double({ min: 0.05, max: 1, noNaN: true }),
  ])("Ω matches the closed form ‖(1−λ)u(1_e − v) + λ(1_M'/|M'| − 1_M/|M|)‖ at every step", (seq, lambda) => {
    const sys = voteStateSystem(CANDS, { lambda });
    let th = sys.theta0!;
    for (const i of seq) {
      const k = CANDS.length;
      const u = th[2 * k]!;
      const v = Array.from(th.subarray(0, k));
      const M = pluralitySet(th, k);
      const after = sys.expand(idOf(i), th);
      const M2 = pluralitySet(after, k);
      const diff = v.map((vj, j) => {
        const vote = i < 0 ? 0 : (1 - lambda) * u * ((j === i ? 1 : 0) - vj);
        return vote + lambda * ((M2.includes(j) ? 1 / M2.length : 0) - (M.includes(j) ? 1 / M.length : 0));
      });
      const expected = Math.hypot(...diff);
      // both sides are O(1) sums of k terms with O(1) rounding each; 32 eps absolute covers it
      expectCloseInEps(orderGap(sys, th, idOf(i)), expected, 32, 1);
      th = sys.consolidate(after);
    }
  });

  fcTest.prop([
    fc.array(fc.integer({ min: -1, max: 3 }), { minLength: 1, maxLength: 80 }),
    fc.double({ min: 0.1, max: 0.9, noNaN: true }),
  ])('Ω is small exactly when the sample leaves the consolidated answer unchanged', (seq, lambda) => {
    const sys = voteStateSystem(CANDS, { lambda });
    const k = CANDS.length;
    let th = sys.theta0!;
    for (const i of seq) {
      const u = th[2 * k]!;
      const before = consolidatedAnswer(sys, th);
      const ev = evaluateOrderGap(sys, th, idOf(i));
      const after = consolidatedAnswer(sys, ev.expandThenConsolidate);
      const changed = JSON.stringify(pluralitySet(th, k)) !== JSON.stringify(pluralitySet(ev.expandThenConsolidate, k));
      const bound = answerChangeBound(u, lambda);
      // unchanged plurality set → Ω <= (1−λ)u√2 always (a few eps of rounding allowed)
      if (!changed) expect(ev.omega).toBeLessThanOrEqual(bound + 16 * EPS);
      // strict plurality before and u < λ/(4(1−λ)): a change gives Ω >= λ/√2 − (1−λ)u√2, which
      // exceeds the bound by the margin λ/√2 − 2(1−λ)u√2 > 0. (An unchanged answer can reach the
      // bound itself — v a vertex and a dissenting sample — so the test uses the change floor.)
      if (before !== null && u < lambda / (4 * (1 - lambda))) {
        const changeFloor = lambda * Math.SQRT1_2 - (1 - lambda) * u * Math.SQRT2;
        expect(changeFloor).toBeGreaterThan(bound);
        if (changed) {
          expect(ev.omega).toBeGreaterThanOrEqual(changeFloor - 16 * EPS);
          expect(after).not.toBe(before);
        }
      }
      th = ev.expandThenConsolidate;
    }
  });

  it('the claim is not vacuous: a flip in a long run is detected', () => {
    const sys = voteStateSystem(['a', 'b'], { lambda: 0.5 });
    let th = sys.theta0!;
    for (const x of ['a', 'a', 'b', 'b']) th = sys.consolidate(sys.expand(answerEvidence(x), th));
    // a: 2, b: 2 → tie; now: a, then b, b (b overtakes at 3:4)
    for (const x of ['a', 'b']) th = sys.consolidate(sys.expand(answerEvidence(x), th)); // a 3, b 3 → tie
    th = sys.consolidate(sys.expand(answerEvidence('a'), th)); // a 4 : b 3, u = 1/8
    const u = th[4]!;
    expectCloseInEps(u, 1 / 8, 16);
    const om = orderGap(sys, th, answerEvidence('b')); // 4:4 → tie: changes the answer
    expect(om).toBeGreaterThan(answerChangeBound(u, 0.5));
    expect(orderGap(sys, th, answerEvidence('a'))).toBeLessThanOrEqual(answerChangeBound(u, 0.5));
  });

  fcTest.prop([fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 400 })])(
    'v tracks the vote shares within 3·n·eps (the basis of the tie tolerance sqrt(eps))',
    (seq) => {
      const sys = voteStateSystem(CANDS);
      let th = sys.theta0!;
      const counts = [0, 0, 0, 0];
      seq.forEach((i, n) => {
        th = sys.consolidate(sys.expand(idOf(i), th));
        counts[i]!++;
        for (let j = 0; j < 4; j++)
          expect(Math.abs(th[j]! - counts[j]! / (n + 1))).toBeLessThanOrEqual(3 * (n + 1) * EPS);
        expect(consolidatedAnswer(sys, th)).toBe(
          counts.filter((c) => c === Math.max(...counts)).length === 1
            ? CANDS[counts.indexOf(Math.max(...counts))]
            : null,
        );
      });
    },
  );

  it('Algorithm 1 on the vote-state system stops where the order-gap rule stops on the replay stream', () => {
    const item = {
      line: 1,
      question: 'q',
      answer: 'x',
      samples: [
        'the answer is x',
        'the answer is y',
        '',
        'the answer is x',
        'the answer is x',
        'the answer is x',
        'the answer is x',
        'the answer is y',
        'the answer is x',
        'the answer is x',
      ],
    };
    const stream = buildStream(item, answerIsExtractor, { seed: 3, repeat: 0, itemIndex: 0, budget: 10, lambda: 0.5 });
    const sys = voteStateSystem(['x', 'y']);
    const sequence = stream.order.map((j) => {
      const ex = answerIsExtractor.extract(item.samples[j]!);
      return ex.kind === 'answer' ? answerEvidence(ex.answer) : EMPTY_EVIDENCE;
    });
    const run = runRecursive(sys, { epsilon: 0.05, window: 3, maxSteps: 10, sequence });
    const rule = new OrderGapRule({ epsilon: 0.05, window: 3 });
    let stop = 0;
    for (const s of stream.steps) {
      if (rule.observe(s.obs).stop) {
        stop = s.obs.t;
        break;
      }
    }
    expect(run.stop.reason).toBe('order-gap');
    expect(stop).toBe(run.stop.step);
    run.steps.forEach((s, i) => expect(s.omega).toBe(stream.steps[i]!.obs.omega));
  });

  // The replay's streams run the system's maps without the operator contract's checks, and build
  // each item's system once for all its repeats: every Ω is still the checked definition's, bit
  // for bit, whatever the answers, λ and repeat.
  fcTest.prop([
    fc.array(fc.constantFrom('x', 'y', 'z', 'w', ''), { minLength: 1, maxLength: 30 }),
    fc.double({ min: 0.01, max: 1, noNaN: true }),
    fc.integer({ min: 0, max: 5 }),
  ])('stream Ω equals the checked definition at every step', (answers, lambda, repeat) => {
    const item = { question: 'q', answer: 'x', line: 1, samples: answers.map((a) => (a ? `the answer is ${a}` : '')) };
    const options = { seed: 7, repeat, itemIndex: 0, budget: answers.length, lambda };
    const prepared = prepareItem(item, answerIsExtractor, lambda);
    buildStream(item, answerIsExtractor, { ...options, repeat: repeat + 1 }, prepared); // reused: no state carried
    const stream = buildStream(item, answerIsExtractor, options, prepared);
    const sys = voteStateSystem(prepared.system.layout.candidates, { lambda });
    let th = sys.theta0!;
    stream.steps.forEach((s) => {
      const e = s.obs.answer === null ? EMPTY_EVIDENCE : answerEvidence(s.obs.answer!);
      const ev = evaluateOrderGap(sys, th, e);
      expect(s.obs.omega).toBe(ev.omega);
      th = ev.expandThenConsolidate;
    });
    expect(stream.steps).toEqual(buildStream(item, answerIsExtractor, options).steps);
  });

  // The maps write into an output array when given one, possibly their own input: the same bits as
  // a fresh array, the input untouched otherwise, and Q equal to its formula over the plurality
  // set, c_i = (1 − λ)·v_i + λ/|M|·[i ∈ M] (module comment), written out independently here.
  fcTest.prop([
    fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 6 }),
    fc.double({ min: 0.01, max: 1, noNaN: true }),
    fc.integer({ min: -1, max: 5 }),
  ])('maps into an output array, in place or not, give the fresh result', (v, lambda, e) => {
    const k = v.length;
    const { maps } = voteStateSystem(CANDS.concat(['e', 'f']).slice(0, k), { lambda });
    const theta = Float64Array.from([...v, ...v.map((x) => x / 2), 0.25]);
    const before = theta.slice();
    const answer = Math.min(e, k - 1);
    const M = pluralitySet(theta, k);
    const q = maps.consolidate(theta);
    for (let i = 0; i < k; i++)
      expect(q[k + i]).toBe((1 - lambda) * theta[i]! + (M.includes(i) ? lambda / M.length : 0));
    const p = maps.expand(answer, theta);
    const out = new Float64Array(2 * k + 1).fill(Number.NaN);
    expect(maps.consolidate(theta, out)).toBe(out);
    expect(out).toEqual(q);
    expect(maps.expand(answer, theta, out)).toBe(out);
    expect(out).toEqual(p);
    expect(theta).toEqual(before);
    const own = theta.slice();
    expect(maps.consolidate(own, own)).toEqual(q);
    own.set(theta);
    expect(maps.expand(answer, own, own)).toEqual(p);
  });

  it('rejects bad construction arguments', () => {
    expect(() => voteStateSystem(['a', 'a'])).toThrow(/^candidates\[1\] = "a": is a duplicate answer/);
    expect(() => voteStateSystem(['a'], { lambda: 0 })).toThrow(/^lambda = 0/);
    expect(() => voteStateSystem(['a'], { evidence: { 'answer:z': 1 } })).toThrow(
      /^evidence.answer:z = 1: names no candidate/,
    );
    expect(voteStateSystem([]).dim).toBe(1);
  });
});
