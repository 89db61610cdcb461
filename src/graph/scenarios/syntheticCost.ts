/**
 * What a run of the reference graph on a synthetic scenario (./synthetic.ts) will cost, before
 * anything of its size exists: the bytes its structured state holds, from the state's layout;
 * the peak memory and the time of the whole run, from a cost model fitted to measurements
 * (bench/run-cost.ts). `ordergap run --synthetic` refuses a size whose estimate exceeds its
 * limits (src/report/run.ts) and shows its progress against this estimate.
 */
import { syntheticShape } from './synthetic.js';

/** Options of {@link syntheticRunCost} (the defaults of `syntheticScenario` and of the run). */
export interface SyntheticCostOptions {
  /** Attribute dimension k (default 8). */
  k?: number;
  /** ~ edges per node (default 10). */
  edgesPerNode?: number;
  /** Pool size (default 8). */
  items?: number;
  /** The step budget Tmax: the estimate is for a run that uses all of it. */
  steps: number;
}

/** The estimate of {@link syntheticRunCost}. */
export interface SyntheticRunCost {
  readonly nmax: number;
  readonly steps: number;
  /**
   * Bytes the structured state holds (`StructuredGraphState.bytes`): its exact layout with every
   * edge the scenario and the pool can store counted (an upper bound: random draws repeat edges).
   */
  readonly stateBytes: number;
  /** Estimated peak resident memory of the process over the run (bytes). */
  readonly peakBytes: number;
  /** Estimated milliseconds before the first step (the graph, the run's states) and after the last (the report). */
  readonly fixedMilliseconds: number;
  /** Estimated milliseconds per step. */
  readonly stepMilliseconds: number;
  /** fixed + steps × step: the whole run when it uses its budget (an earlier stop takes less). */
  readonly milliseconds: number;
}

/**
 * Coefficients of the model on (1, state bytes, Nmax²): cost = c0 + c1·bytes + c2·Nmax², where
 * bytes is {@link SyntheticRunCost.stateBytes} (about 302·Nmax at k = 8 and 10 edges per node).
 * The linear term follows the state (every pass reads the node block and the edges); the
 * quadratic one is the merge index: the synthetic claims are spread over the same box
 * [0, 4)^(k−1) whatever Nmax, so the pairs within the merge radius — which every build of the
 * state lists and every Q visits — grow as Nmax². A step is therefore not linear in Nmax: its quadratic term overtakes the linear one
 * near Nmax = 260 000.
 *
 * The coefficients are the `fit` of bench/results/run-cost.json, written by bench/run-cost.ts:
 * `runReport({ synthetic })` at Nmax = 4096, 8192, …, 262144 (k = 8, 10 edges per node, ε =
 * 1e-300 so that every size runs its budget of 30, 15 or 8 steps), each size twice in a fresh
 * process, on a 2-core x86-64 host under Node 20 (load average 1.3 to 1.6). Time is the process's
 * CPU time (user + system; the run is single-threaded, and CPU time is what other jobs on a
 * shared host change least), split into the fixed part (before step 1 and after the last) and the
 * mean step; memory is the process's peak resident set less its resident set before the run. The
 * fit is the non-negative least-squares fit of the relative errors, rounded up to two digits: it
 * under-estimates no measurement by more than 15 % (the fixed part at 262144) and over-estimates
 * none by more than 20 % (a step at 32768). Measured at 65536: 1.1 and 1.2 s of CPU time for the
 * fixed part, 41 and 39 ms per step; at 262144: 5.2 and 4.3 s, 0.20 and 0.18 s per step, 512 and
 * 518 MiB.
 */
const FIXED_MS = { c0: 190, c1: 4.6e-5, c2: 9.6e-9 };
const STEP_MS = { c0: 6.7, c1: 1.2e-6, c2: 1.4e-9 };
const PEAK_BYTES = { c0: 2.9e7, c1: 7.1, c2: 0 };

/**
 * Safety margin on the fitted model: it covers the fit's largest under-estimate (15 %) and
 * leaves room for a machine about 1.7 times slower than the one measured. The estimates are 1.8
 * to 2.2 times the CPU time measured, and 2.0 to 3.5 times the wall time (with one or two other
 * jobs on the 2 cores). A machine busy with more work can take longer than the estimate: it is of
 * the run's own CPU time.
 */
export const COST_MARGIN = 2;

/** Stored edges the scenario and its pool can hold at most (./synthetic.ts's construction). */
function edgeBound(nmax: number, k: number, edgesPerNode: number, items: number): number {
  const shape = syntheticShape(nmax, k);
  const answers = shape.firstQuestion - shape.firstAnswer;
  // per present claim: its self support, its supports, one contradiction, one requires edge;
  // per answer its requires edge; per pool item at most 5 edge writes (syntheticProblem's item)
  const perClaim = 1 + Math.max(1, edgesPerNode - 3) + 2;
  return (shape.claims - 1) * perClaim + answers + 5 * items;
}

/**
 * Estimates the state's bytes, the peak memory and the time of a run of `steps` steps on
 * `syntheticScenario(nmax, options)`. O(1): nothing of the scenario's size is allocated.
 * @example
 * ```ts
 * const c = syntheticRunCost(262144, { steps: 100 });
 * c.milliseconds > syntheticRunCost(131072, { steps: 100 }).milliseconds; // true
 * ```
 */
export function syntheticRunCost(nmax: number, options: SyntheticCostOptions): SyntheticRunCost {
  const k = options.k ?? 8;
  const edges = edgeBound(nmax, k, options.edgesPerNode ?? 10, options.items ?? 8);
  // the node block, then per edge block its row and column starts, and 24 bytes per edge (CSR + CSC)
  const stateBytes = 8 * (k + 1) * nmax + 3 * 8 * (nmax + 1) + 24 * edges;
  const model = (c: { c0: number; c1: number; c2: number }) =>
    COST_MARGIN * (c.c0 + c.c1 * stateBytes + c.c2 * nmax * nmax);
  const fixedMilliseconds = model(FIXED_MS);
  const stepMilliseconds = model(STEP_MS);
  return {
    nmax,
    steps: options.steps,
    stateBytes,
    peakBytes: model(PEAK_BYTES),
    fixedMilliseconds,
    stepMilliseconds,
    milliseconds: fixedMilliseconds + options.steps * stepMilliseconds,
  };
}
