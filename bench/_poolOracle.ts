/**
 * A lower bound on the mean samples any symmetric stopping rule can reach on a set of recorded
 * pools while keeping the pool guarantee (P(stop on an answer that is not a majority of the N
 * samples) <= δ) on a given set of constraint pools. Symmetric: the rule sees the sequence of
 * samples only up to renaming the answers (which samples agree, which are empty) and that, when
 * it stops before the budget, names one of the answers it has seen — every rule of src/stopping
 * that reads answers is one, the count-based ones included. (A rule allowed to stop without an
 * answer could stop at once and never stop falsely: the guarantee does not exclude it, accuracy
 * does.)
 *
 * Why a dynamic programme over count vectors is exact for that class: under a pool (N samples in
 * a uniformly random order), the probability of a sequence whose answers have counts x_1..x_k and
 * b empty samples, for one assignment σ of its answers to the pool's answers, is
 * Π_j [X_σ(j)]_{x_j} · [B]_b / [N]_n ([m]_x the falling factorial). So the posterior over (pool,
 * assignment) given what a symmetric rule has seen depends only on the sorted counts and b, and
 * for the Lagrangian objective
 *   (1/U)·Σ_units E[samples] + Σ_q λ_q·P_q(stop on a non-majority answer)
 * the optimal rule (even among randomised ones) is found by backward induction over (sorted
 * counts, b), choosing at a stop the answer of least weighted loss. For every λ >= 0, the
 * optimum minus δ·Σ_q λ_q is at most the mean samples of any rule that meets δ on every
 * constraint pool (weak duality): each λ gives a valid bound; a subgradient ascent over λ looks
 * for a high one. The mean samples is the expectation over uniformly random orders of each unit's
 * pool; units whose pools have more answers or empty samples than the state space holds are
 * counted as 1 sample (a valid, weak bound for them), units without any answer as N (the rule
 * cannot name an answer before the budget). With `maxParts`, a sample that brings a new
 * answer beyond that many leads to a free stop (no further samples, no loss): the rule gets more
 * than it has, so the bound stays valid, and the state space stays small.
 *
 * This is a measurement on the recorded samples, never a tuning of a shipped rule.
 */

/** A pool: answer counts (any order) and empty samples; `weight` = how many units share it. */
export interface OraclePool {
  readonly counts: readonly number[];
  readonly blanks: number;
  readonly weight: number;
}

interface State {
  readonly parts: number[];
  readonly b: number;
  readonly n: number;
  /** Σ over objective pools of weight/U · (probability of one sequence with these counts). */
  step: number;
  /** loss[q][j]: probability of one such sequence under constraint pool q with answer j non-majority. */
  readonly loss: number[][];
  readonly succ: number[];
}

/** The result of {@link poolOracle}. */
export interface PoolOracleResult {
  readonly units: number;
  readonly coveredUnits: number;
  readonly states: number;
  readonly iterations: number;
  /** The best lower bound found on the mean samples over all units (uncovered units at 1, or N without answers). */
  readonly lowerBound: number;
  /** The same bound restricted to the covered units (their mean). */
  readonly lowerBoundCovered: number;
  /**
   * The Lagrangian rule of fewest mean samples (covered units) among those the ascent met that keep
   * δ on every constraint pool: what a rule tuned on these very pools reaches (null: none met).
   */
  readonly bestFeasibleRule: { readonly meanSamplesCovered: number; readonly maxFalseStop: number } | null;
  /** Exact mean samples over uniformly random orders of the covered units, per stop function. */
  readonly exactMeans: Record<string, number>;
}

/** A symmetric stop decision on sorted answer counts (largest first) after n samples. */
export type CountStop = (parts: readonly number[], blanks: number, n: number) => boolean;

function fallingTable(N: number): number[][] {
  const ff: number[][] = [];
  for (let X = 0; X <= N; X++) {
    ff[X] = [1];
    for (let x = 1; x <= N; x++) ff[X]![x] = ff[X]![x - 1]! * Math.max(0, X - x + 1);
  }
  return ff;
}

/**
 * Probability of one sequence with counts `parts` and `b` blanks under pool P, in total and per
 * answer j restricted to the assignments that map j to a non-majority answer of P.
 */
function sequenceMass(P: OraclePool, parts: number[], b: number, ff: number[][], norm: number) {
  const M = Math.max(...P.counts);
  const k = parts.length;
  const used = P.counts.map(() => false);
  const map: number[] = [];
  const perAnswer = new Array<number>(k).fill(0);
  let total = 0;
  const visit = (j: number, prod: number): void => {
    if (prod === 0) return;
    if (j === k) {
      total += prod;
      for (let i = 0; i < k; i++) if (P.counts[map[i]!]! < M) perAnswer[i]! += prod;
      return;
    }
    for (let a = 0; a < P.counts.length; a++) {
      if (used[a]) continue;
      used[a] = true;
      map[j] = a;
      visit(j + 1, prod * ff[P.counts[a]!]![parts[j]!]!);
      used[a] = false;
    }
  };
  visit(0, ff[P.blanks]![b]! / norm);
  return { total, perAnswer };
}

function buildStates(
  objective: OraclePool[],
  constraints: OraclePool[],
  units: number,
  N: number,
  maxParts: number,
): State[] {
  const ff = fallingTable(N);
  const norm: number[] = [1];
  for (let n = 1; n <= N; n++) norm[n] = norm[n - 1]! * (N - n + 1);
  const states: State[] = [];
  const index = new Map<string, number>();
  const add = (parts: number[], b: number): number => {
    const key = `${parts.join(',')}|${b}`;
    const seen = index.get(key);
    if (seen !== undefined) return seen;
    const n = parts.reduce((s, x) => s + x, 0) + b;
    let step = 0;
    let reachable = false;
    for (const P of objective) {
      const m = sequenceMass(P, parts, b, ff, norm[n]!).total;
      if (m > 0) reachable = true;
      step += (P.weight / units) * m;
    }
    const loss = constraints.map((P) => {
      const m = sequenceMass(P, parts, b, ff, norm[n]!);
      if (m.total > 0) reachable = true;
      return m.perAnswer;
    });
    if (!reachable) return -1;
    states.push({ parts, b, n, step, loss, succ: [] });
    index.set(key, states.length - 1);
    return states.length - 1;
  };
  add([], 0);
  // breadth first: every successor has one more sample, so reverse order is a backward order
  for (let i = 0; i < states.length; i++) {
    const s = states[i]!;
    if (s.n >= N) continue;
    const next: Array<[number[], number]> = s.parts.map((_, j) => {
      const p = s.parts.slice();
      p[j]!++;
      return [p.sort((x, y) => y - x), s.b];
    });
    // a sample with a new answer beyond maxParts answers leads nowhere: the rule stops there free
    if (s.parts.length < maxParts) next.push([[...s.parts, 1], s.b]);
    next.push([s.parts, s.b + 1]);
    for (const [p, b] of next) {
      const t = add(p, b);
      if (t >= 0) s.succ.push(t);
    }
  }
  return states;
}

/** The answer of least weighted loss at a state and that loss (Infinity: no answer to stop on). */
function stopLoss(s: State, lambda: readonly number[]): { loss: number; answer: number } {
  let loss = Infinity;
  let answer = -1;
  for (let j = 0; j < s.parts.length; j++) {
    let c = 0;
    for (let q = 0; q < lambda.length; q++) c += lambda[q]! * s.loss[q]![j]!;
    if (c < loss) [loss, answer] = [c, j];
  }
  return { loss, answer };
}

/** Backward induction: the optimal stop set for λ and its Lagrangian value (per sequence mass). */
function solve(states: State[], lambda: readonly number[], N: number) {
  const W = new Float64Array(states.length);
  const stop = new Uint8Array(states.length);
  for (let i = states.length - 1; i >= 0; i--) {
    const s = states[i]!;
    if (s.n === N) {
      stop[i] = 1;
      continue;
    }
    let cont = s.step;
    for (const t of s.succ) cont += W[t]!;
    const { loss } = stopLoss(s, lambda);
    if (loss <= cont) [W[i], stop[i]] = [loss, 1];
    else W[i] = cont;
  }
  return { value: W[0]!, stop };
}

/**
 * Forward pass of a stop set: the number of live sequences per state (each state's sequences all
 * share the same probabilities), the mean samples (covered units) and per-constraint false stops.
 */
function evaluate(states: State[], stop: Uint8Array, lambda: readonly number[], N: number) {
  const live = new Float64Array(states.length);
  live[0] = 1;
  let mean = 0;
  const falseStop = lambda.map(() => 0);
  states.forEach((s, i) => {
    const m = live[i]!;
    if (stop[i]) {
      if (s.n < N && s.parts.length > 0) {
        const { answer } = stopLoss(s, lambda);
        falseStop.forEach((_, q) => (falseStop[q]! += m * s.loss[q]![answer]!));
      }
      return;
    }
    mean += m * s.step;
    for (const t of s.succ) live[t]! += m;
  });
  return { mean, falseStop };
}

/**
 * The lower bound of the module comment for `pools` (the units) under `constraints`, with the
 * exact mean samples of each of `rules` on the same covered units for comparison.
 * @param maxAnswers, maxBlanks the state space: units with more are counted as 1 sample.
 */
export function poolOracle(options: {
  pools: OraclePool[];
  constraints: OraclePool[];
  N: number;
  delta: number;
  maxAnswers: number;
  maxBlanks: number;
  /** States with more answers than this (default maxAnswers) are free stops: a weaker, valid bound. */
  maxParts?: number;
  iterations: number;
  rules: Record<string, CountStop>;
}): PoolOracleResult {
  const { N, delta } = options;
  const units = options.pools.reduce((s, p) => s + p.weight, 0);
  const covered = options.pools.filter(
    (p) => p.counts.length >= 1 && p.counts.length <= options.maxAnswers && p.blanks <= options.maxBlanks,
  );
  const coveredUnits = covered.reduce((s, p) => s + p.weight, 0);
  const states = buildStates(covered, options.constraints, units, N, options.maxParts ?? options.maxAnswers);
  // uncovered units: 1 sample each, except those with no answer at all, which run to the budget
  const silent = options.pools.filter((p) => p.counts.length === 0).reduce((s, p) => s + p.weight, 0);
  const uncovered = (units - coveredUnits - silent + silent * N) / units;
  let lambda = options.constraints.map(() => 20 / options.constraints.length);
  let best = -Infinity;
  let feasible: { mean: number; maxFalseStop: number } | null = null;
  for (let it = 0; it < options.iterations; it++) {
    const { value, stop } = solve(states, lambda, N);
    const bound = value + uncovered - delta * lambda.reduce((s, x) => s + x, 0);
    const e = evaluate(states, stop, lambda, N);
    best = Math.max(best, bound);
    const maxFalseStop = Math.max(...e.falseStop);
    if (maxFalseStop <= delta && (feasible === null || e.mean < feasible.mean))
      feasible = { mean: e.mean, maxFalseStop };
    // projected subgradient ascent on the dual, diminishing steps
    const size = 10 / Math.sqrt(it + 1);
    lambda = lambda.map((l, q) => Math.max(0, l + size * (e.falseStop[q]! - delta)));
  }
  const exactMeans: Record<string, number> = {};
  for (const [name, rule] of Object.entries(options.rules)) {
    const stop = Uint8Array.from(states, (s) => (s.n === N || (s.parts.length > 0 && rule(s.parts, s.b, s.n)) ? 1 : 0));
    exactMeans[name] = (evaluate(states, stop, [], N).mean * units) / coveredUnits;
  }
  return {
    units,
    coveredUnits,
    states: states.length,
    iterations: options.iterations,
    lowerBound: best,
    lowerBoundCovered: ((best - uncovered) * units) / coveredUnits,
    bestFeasibleRule:
      feasible === null
        ? null
        : { meanSamplesCovered: (feasible.mean * units) / coveredUnits, maxFalseStop: feasible.maxFalseStop },
    exactMeans,
  };
}
