import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { runRecursive } from '../../src/ordergap/algorithm1.js';
import { closedFormSystem } from '../../src/closedForm/system.js';
import { AnswerStabilityRule } from '../../src/stopping/answerStability.js';
import { BetaStoppingRule } from '../../src/stopping/betaRule.js';
import { ConfidenceThresholdRule } from '../../src/stopping/confidenceThreshold.js';
import { FixedBudgetRule } from '../../src/stopping/fixedBudget.js';
import { OrderGapRule } from '../../src/stopping/orderGapRule.js';
import { PatienceConvergenceRule } from '../../src/stopping/patienceConvergence.js';
import { PluralityAgreementRule } from '../../src/stopping/pluralityAgreement.js';
import { createRule, defaultRuleSpecs, listRules, parseRuleSpec } from '../../src/stopping/registry.js';
import type { StepObservation, StopDecision, StoppingRule } from '../../src/stopping/rule.js';
import { VoteTally } from '../../src/stopping/votes.js';

/** Feeds observations (t filled in) until the rule stops; returns the stop step and decision. */
function drive(
  rule: StoppingRule,
  obs: Array<Omit<StepObservation, 't'>>,
): { t: number | null; d: StopDecision | null } {
  for (let i = 0; i < obs.length; i++) {
    const d = rule.observe({ ...obs[i], t: i + 1 });
    if (d.stop) return { t: i + 1, d };
  }
  return { t: null, d: null };
}
const answers = (xs: Array<string | null>): Array<Omit<StepObservation, 't'>> => xs.map((answer) => ({ answer }));

describe('order-gap rule', () => {
  it('stops where Algorithm 1 stops on the Sec. 9.2 sequence (t = 4)', () => {
    // Sec. 9.2 of the paper: ε = 0.025, w = 2, evidence e1..e5 → stop at t = 4
    const run = runRecursive(closedFormSystem(), {
      epsilon: 0.025,
      window: 2,
      maxSteps: 5,
      sequence: ['e1', 'e2', 'e3', 'e4', 'e5'],
    });
    const r = drive(
      new OrderGapRule({ epsilon: 0.025, window: 2 }),
      run.steps.map((s) => ({ omega: s.omega })),
    );
    expect(run.stop.step).toBe(4);
    expect(r.t).toBe(4);
    expect(r.d?.reason).toBe('order-gap');
  });
  it('hand case: window means 0.3, 0.15, 0.05 against ε = 0.1', () => {
    // means of the last 2: (0.5+0.1)/2 = 0.3, (0.1+0.2)/2 = 0.15, (0.2+0)/2 = 0.1 <= 0.1 → stop at t = 4
    const r = drive(
      new OrderGapRule({ epsilon: 0.1, window: 2 }),
      [0.5, 0.1, 0.2, 0].map((omega) => ({ omega })),
    );
    expect(r.t).toBe(4);
  });
  it('straddles ε: a window mean 1% above ε continues, 1% below stops', () => {
    expect(drive(new OrderGapRule({ epsilon: 0.1, window: 1 }), [{ omega: 0.101 }]).t).toBeNull();
    expect(drive(new OrderGapRule({ epsilon: 0.1, window: 1 }), [{ omega: 0.099 }]).t).toBe(1);
  });
  it('caps at maxSteps with reason budget, never throwing', () => {
    const r = drive(
      new OrderGapRule({ epsilon: 0.1, window: 1, maxSteps: 3 }),
      [1, 1, 1, 1].map((omega) => ({ omega })),
    );
    expect(r).toMatchObject({ t: 3, d: { reason: 'budget' } });
  });
  it('needs omega, in order, and resets', () => {
    const rule = new OrderGapRule({ epsilon: 0.1, window: 2 });
    expect(() => rule.observe({ t: 1 })).toThrow(/^obs.omega = undefined: is required by the order-gap rule/);
    const r2 = new OrderGapRule({ epsilon: 0.1, window: 2 });
    expect(() => r2.observe({ t: 2, omega: 0 })).toThrow(/^obs.t = 2: must be 1/);
    r2.observe({ t: 1, omega: 0 });
    expect(r2.observe({ t: 2, omega: 0 }).stop).toBe(true);
    r2.reset();
    expect(r2.observe({ t: 1, omega: 0 }).stop).toBe(false); // buffer emptied: |B| = 1 < w
    expect(() => r2.observe({ t: 2, omega: -1 })).toThrow(/^obs.omega = -1/);
  });
});

describe('order-gap rule: snapshot and restore', () => {
  // Ω of Algorithm 1 on the closed form of Sec. 9.2 (budget run: floats of every size)
  const omegas = runRecursive(closedFormSystem(), {
    epsilon: 0.025,
    window: 3,
    maxSteps: 12,
    rule: 'budget',
  }).steps.map((s) => s.omega);
  const make = () => new OrderGapRule({ epsilon: 0.02, window: 3 });
  const observeFrom = (rule: StoppingRule, k: number) =>
    omegas.slice(k).map((omega, i) => rule.observe({ t: k + i + 1, omega }));

  it('a rule restored from the snapshot after any step (through JSON) decides every later step as the original', () => {
    const whole = observeFrom(make(), 0);
    expect(whole.some((d) => d.stop)).toBe(true);
    for (let k = 0; k <= omegas.length; k++) {
      const a = make();
      omegas.slice(0, k).forEach((omega, i) => a.observe({ t: i + 1, omega }));
      const b = make();
      b.observe({ t: 1, omega: 9 }); // b has its own past: the restore replaces it
      b.restore(JSON.parse(JSON.stringify(a.snapshot())));
      expect(b.values).toEqual(omegas.slice(0, k));
      expect(observeFrom(b, k)).toEqual(whole.slice(k));
    }
  });

  it('an observation the rule refuses leaves its step count alone: the same t is taken next', () => {
    const r = createRule({ name: 'order-gap', params: { epsilon: 0.025, window: 2 } });
    r.observe({ t: 1, omega: 0.5 });
    expect(() => r.observe({ t: 2, omega: -1 })).toThrow(/^obs\.omega = -1/);
    expect(() => r.observe({ t: 2, omega: 0.1 })).not.toThrow();
  });

  it('a snapshot of another configuration or not fitting its t is refused, the rule unchanged', () => {
    const a = make();
    omegas.slice(0, 4).forEach((omega, i) => a.observe({ t: i + 1, omega }));
    const s = a.snapshot();
    const b = make();
    b.observe({ t: 1, omega: 0.5 });
    const other = new OrderGapRule({ epsilon: 0.02, window: 2 });
    expect(() => other.restore(s)).toThrow(
      /^snapshot\.label = "order-gap\(epsilon=0\.02, window=3\)": must be this rule's label "order-gap\(epsilon=0\.02, window=2\)"/,
    );
    expect(() => b.restore({ ...s, t: 3 })).toThrow(
      /^snapshot\.state\.values = an array of length 4: must be the 3 order-gaps observed/,
    );
    expect(() => b.restore({ ...s, t: -1 })).toThrow(/^snapshot\.t = -1/);
    expect(() => b.restore({ ...s, state: { values: [0.1, 0.2, -0.3, 0.4] } })).toThrow(
      /^snapshot\.state\.values\[2\] = -0\.3: an order-gap cannot be negative/,
    );
    expect(() => b.restore(null as never)).toThrow(/^snapshot = null/);
    expect(b.snapshot()).toEqual({ label: b.label, t: 1, state: { values: [0.5] } });
  });
});

describe('fixed budget', () => {
  it('stops exactly at N', () => {
    expect(drive(new FixedBudgetRule({ budget: 3 }), [{}, {}, {}, {}])).toMatchObject({
      t: 3,
      d: { reason: 'budget' },
    });
    expect(() => new FixedBudgetRule({ budget: 0 })).toThrow(/^budget = 0/);
  });
});

describe('confidence threshold', () => {
  it('stops at the first confidence >= threshold after minSteps', () => {
    const c = [0.5, 0.9, 0.95, 0.7].map((confidence) => ({ confidence }));
    expect(drive(new ConfidenceThresholdRule({ threshold: 0.9 }), c).t).toBe(2);
    expect(drive(new ConfidenceThresholdRule({ threshold: 0.9, minSteps: 3 }), c).t).toBe(3);
    expect(() => drive(new ConfidenceThresholdRule({ threshold: 0.9 }), [{ confidence: 1.2 }])).toThrow(
      /^obs.confidence = 1.2/,
    );
    expect(() => new ConfidenceThresholdRule({ threshold: 0 })).toThrow(/^threshold = 0/);
  });
});

describe('patience convergence (Archives and stopping rules)', () => {
  it('hand case: improvements 0.2 then 0.02, 0.03 (<= ε·R = 0.05) exhaust patience 2 at t = 4', () => {
    const r = drive(
      new PatienceConvergenceRule({ epsilon: 0.05, patience: 2, maxDepth: 10 }),
      [0.5, 0.7, 0.72, 0.73].map((score) => ({ score })),
    );
    expect(r).toMatchObject({ t: 4, d: { reason: 'criterion' } });
  });
  it('improvement is measured against the best so far, with the range R', () => {
    // R = 10, ε = 0.05 → must improve by > 0.5; 1 → 1.4 → 1.8 (+0.8 over best 1) resets at t = 3
    const r = drive(
      new PatienceConvergenceRule({ epsilon: 0.05, range: 10, patience: 2, maxDepth: 10 }),
      [1, 1.4, 1.8, 1.9, 2.0, 2.1].map((score) => ({ score })),
    );
    expect(r.t).toBe(5);
  });
  it('a falling score counts towards patience', () => {
    expect(
      drive(new PatienceConvergenceRule({ epsilon: 0.01, patience: 1, maxDepth: 9 }), [{ score: 0.9 }, { score: 0.1 }])
        .t,
    ).toBe(2);
  });
  it('stops on an empty output and at depth D', () => {
    const r = drive(new PatienceConvergenceRule({ epsilon: 0.01, patience: 5, maxDepth: 9 }), [
      { score: 0.1 },
      { empty: true, score: 0.2 },
    ]);
    expect(r).toMatchObject({ t: 2, d: { reason: 'empty-output' } });
    const off = drive(new PatienceConvergenceRule({ epsilon: 0.01, patience: 5, maxDepth: 3, stopOnEmpty: false }), [
      { score: 0.1 },
      { empty: true, score: 0.2 },
      { score: 0.3 },
      { score: 0.4 },
    ]);
    expect(off).toMatchObject({ t: 3, d: { reason: 'budget' } });
  });
});

describe('answer stability (GROW)', () => {
  it('stops at k consecutive equal answers; null breaks a run', () => {
    expect(drive(new AnswerStabilityRule(), answers(['a', 'b', 'b'])).t).toBe(3);
    expect(drive(new AnswerStabilityRule({ consecutive: 3 }), answers(['a', 'a', null, 'a', 'a', 'a'])).t).toBe(6);
    expect(drive(new AnswerStabilityRule({ maxSteps: 3 }), answers(['a', 'b', 'c', 'd']))).toMatchObject({
      t: 3,
      d: { reason: 'budget' },
    });
    expect(() => new AnswerStabilityRule({ consecutive: 1 })).toThrow(/^consecutive = 1/);
  });
});

describe('plurality agreement (BRANCH early stopping)', () => {
  it('ESC: non-overlapping windows of w identical answers', () => {
    // windows [a,b] [c,c] → stop at 4; a sliding window would have stopped at 4 too, so also check
    // [a,c] [c,d] [d,d]: sliding would stop at 3 (c,c), ESC at 6
    expect(drive(new PluralityAgreementRule({ window: 2 }), answers(['a', 'b', 'c', 'c'])).t).toBe(4);
    expect(drive(new PluralityAgreementRule({ window: 2 }), answers(['a', 'c', 'c', 'd', 'd', 'd'])).t).toBe(6);
    expect(drive(new PluralityAgreementRule({ window: 2 }), answers([null, null, 'a', 'a'])).t).toBe(4);
  });
  it('agreement ratio after minSamples answered samples', () => {
    // a b a a: shares 1/1 (before minSamples 3), 1/2, 2/3, 3/4 >= 0.75 → t = 4
    expect(drive(new PluralityAgreementRule({ ratio: 0.75, minSamples: 3 }), answers(['a', 'b', 'a', 'a'])).t).toBe(4);
    // empties do not count as answered
    expect(drive(new PluralityAgreementRule({ ratio: 1, minSamples: 2 }), answers(['a', null, 'a'])).t).toBe(3);
    // neither criterion given: ESC's published window w = 5
    expect(new PluralityAgreementRule({}).params).toEqual({ window: 5 });
    expect(drive(new PluralityAgreementRule(), answers(['a', 'a', 'a', 'a', 'a'])).t).toBe(5);
    expect(() => new PluralityAgreementRule({ ratio: 1.5 })).toThrow(/^ratio = 1.5/);
  });
});

describe('Beta rule (Adaptive-Consistency)', () => {
  it('stops after 4 unanimous answers at threshold 0.95 (P = 31/32), not after 3 (P = 15/16)', () => {
    expect(drive(new BetaStoppingRule({ threshold: 0.95 }), answers(['a', 'a', 'a', 'a', 'a'])).t).toBe(4);
    // threshold 0.9375 = 15/16 exactly: 3 unanimous answers reach it (>=)
    expect(drive(new BetaStoppingRule({ threshold: 0.9375 }), answers(['a', 'a', 'a'])).t).toBe(3);
  });
  it('hand case with a runner-up: a b a a a a a', () => {
    // counts after each answered sample: (1,0) .5+.25=.75, (1,1) .5, (2,1) 11/16, (3,1) 26/32=.8125,
    // (4,1) P(Bin(6,1/2) <= 4) = 57/64 = .890625, (5,1) P(Bin(7,1/2) <= 5) = 120/128 = .9375,
    // (6,1) P(Bin(8,1/2) <= 6) = 247/256 = .96484 >= 0.95 → t = 7
    expect(drive(new BetaStoppingRule({ threshold: 0.95 }), answers(['a', 'b', 'a', 'a', 'a', 'a', 'a'])).t).toBe(7);
  });
  it('ignores empty samples and validates', () => {
    expect(drive(new BetaStoppingRule(), answers([null, 'a', null, 'a', 'a', 'a'])).t).toBe(6);
    expect(() => new BetaStoppingRule({ threshold: 0.5 })).toThrow(/^threshold = 0.5/);
    expect(() => new BetaStoppingRule({ threshold: 0.95, foo: 1 } as never)).toThrow(
      /^beta.foo = 1: is not a parameter of beta/,
    );
  });
});

describe('VoteTally', () => {
  it('plurality with earliest-seen tie-break, top two, missing counted apart', () => {
    const t = new VoteTally();
    for (const a of ['b', 'a', null, 'a', 'b', 'c']) t.add(a);
    expect(t.leader()).toBe('b'); // a and b tie at 2; b was seen first
    expect(t.topTwo()).toEqual([2, 2]);
    expect([t.valid, t.missing]).toEqual([5, 1]);
  });
});

describe('registry', () => {
  it('parses specs, builds rules and rejects bad ones naming the part', () => {
    expect(parseRuleSpec('order-gap:epsilon=0.05,window=3')).toEqual({
      name: 'order-gap',
      params: { epsilon: 0.05, window: 3 },
    });
    expect(parseRuleSpec('patience:epsilon=0.1,patience=2,maxDepth=5,stopOnEmpty=false').params.stopOnEmpty).toBe(
      false,
    );
    expect(() => parseRuleSpec('nope')).toThrow(/^rule = "nope": is not a stopping rule \(known: order-gap/);
    expect(() => parseRuleSpec('beta:threshold')).toThrow(/expected key=value/);
    expect(() => parseRuleSpec('beta:threshold=abc')).toThrow(/is not a finite number/);
    expect(() => parseRuleSpec('order-gap:epsilon=-1,window=3')).toThrow(/^epsilon = -1/);
    // a flag takes true or false only, as mmc's leaderMatch and cite's retarget do
    for (const v of ['0', '5'])
      expect(() => parseRuleSpec(`patience:stopOnEmpty=${v}`)).toThrow(
        new RegExp(`^stopOnEmpty = ${v}: must be true or false`),
      );
    // a key given twice is refused naming it (the later value used to win without a word)
    expect(() => parseRuleSpec('order-gap:epsilon=0.1,epsilon=0.2')).toThrow(
      /^rule spec "order-gap:epsilon=0\.1,epsilon=0\.2": epsilon = "0\.2": is given twice \(epsilon=0\.1 before\)/,
    );
    expect(() => parseRuleSpec('beta:threshold=0.9,minSamples=2,threshold=0.9')).toThrow(/: threshold = .*given twice/);
    expect(listRules().map((r) => r.name)).toEqual([
      'order-gap',
      'fixed-budget',
      'confidence',
      'patience',
      'stability',
      'plurality',
      'beta',
      'dirichlet',
      'entropy',
      'majority',
      'anytime',
      'pool',
      'esc-dynamic',
      'mmc',
      'cite',
    ]);
    for (const s of defaultRuleSpecs(40)) expect(createRule(s).label.startsWith(s.name)).toBe(true);
  });

  it('every parameter has a documented default: a bare name builds the rule with those values', () => {
    for (const info of listRules()) {
      const spec = parseRuleSpec(info.name); // `--rules order-gap` and friends need no parameters
      const rule = createRule(spec);
      for (const p of info.params) {
        if (p.default === null) expect(rule.params[p.name], `${info.name}.${p.name}`).toBeUndefined();
        // plurality's minSamples belongs to the ratio test and is shown only with a ratio
        else if (p.name in rule.params) expect(rule.params[p.name], `${info.name}.${p.name}`).toBe(p.default);
        else expect(`${info.name}.${p.name}`).toBe('plurality.minSamples');
      }
      // and the rule knows no parameter the registry does not list
      for (const k of Object.keys(rule.params)) expect(info.params.map((p) => p.name)).toContain(k);
      for (const p of info.params)
        expect(info.description).toContain(`${p.name}=${p.default === null ? 'off' : String(p.default)}`);
    }
    expect(createRule(parseRuleSpec('order-gap')).label).toBe('order-gap(epsilon=0.03, window=3)');
    expect(createRule(parseRuleSpec('plurality:ratio=0.7')).params.window).toBeUndefined();
  });

  it('the patience rule samples longest on unanimous votes and stops early on contested ones', () => {
    // score s_t = (t + 1)/(t + 2) on unanimous votes; the best score moves when s_t − best > 0.01:
    // at t = 1..8 (one-step gains 1/((t+1)(t+2)) >= 1/90), t = 10 (11/12 − 9/10 = 1/60),
    // t = 12 (13/14 − 11/12 = 1/84), t = 15 (16/17 − 13/14 = 3/238); then 17/18, 18/19, 19/20
    // gain 1/306, 2/323, 3/340 < 0.01 over 16/17: three stale steps, stop at t = 18.
    const conf = (xs: string[]) => {
      const counts = new Map<string, number>();
      return xs.map((a, i) => {
        counts.set(a, (counts.get(a) ?? 0) + 1);
        return { score: (Math.max(...counts.values()) + 1) / (i + 3) };
      });
    };
    expect(drive(new PatienceConvergenceRule(), conf(Array(30).fill('a'))).t).toBe(18);
    // alternating a, b: every disagreement lowers the score, so patience 3 runs out at t = 4
    expect(drive(new PatienceConvergenceRule(), conf(['a', 'b', 'a', 'b', 'a', 'b', 'a', 'b'])).t).toBe(4);
  });
});

describe('reset', () => {
  // A replay reuses one rule per configuration and resets it between units, so reset must leave a
  // rule deciding exactly as a fresh one: every registered rule, after any first run, decides a
  // second run as a newly built rule does.
  const observations = fc
    .array(
      fc.record({
        answer: fc.constantFrom('a', 'b', 'c', null),
        omega: fc.double({ min: 0, max: 1, noNaN: true }),
        confidence: fc.double({ min: 0, max: 1, noNaN: true }),
      }),
      { minLength: 1, maxLength: 45 },
    )
    .map((xs) => xs.map((x, i) => ({ t: i + 1, ...x, empty: x.answer === null, score: x.confidence })));
  const decisions = (rule: StoppingRule, obs: readonly StepObservation[]): StopDecision[] => {
    const out: StopDecision[] = [];
    for (const o of obs) {
      const d = rule.observe(o);
      out.push(d);
      if (d.stop) break;
    }
    return out;
  };
  for (const { name } of listRules()) {
    fcTest.prop([observations, observations])(`${name}: after reset it decides as a fresh rule`, (first, second) => {
      const spec = { name, params: {} };
      const reused = createRule(spec);
      decisions(reused, first);
      reused.reset();
      expect(decisions(reused, second)).toEqual(decisions(createRule(spec), second));
    });
  }
});
