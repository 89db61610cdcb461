/**
 * How the loop (./run.ts) holds a state and advances it one step, in the two representations a
 * system can have: the dense θ (one Float64Array of d entries, a fresh one per step) and the
 * system's structured state (the `state` capability: changed in place, with consolidation
 * scheduling, Sec. 7.3). The loop sees one {@link Stepper} either way.
 */
import { referenceDistance } from '../blas1/dnrm2.js';
import type { EvidenceWeight, OperatorSystem, StateCapability } from '../system/types.js';
import { evaluateOrderGapUnchecked } from './orderGap.js';

/** One state of a run and the operations the loop applies to it. */
export interface Stepper {
  /** The structured state, or undefined on a dense run. */
  readonly state: unknown;
  /** Applications of Q to the state so far. */
  readonly consolidations: number;
  /** P(·|θ) at the current state. */
  distribution(): readonly EvidenceWeight[];
  /** ‖P_e(θ) − θ‖ at the current state (the state is not changed). */
  residual(evidence: string): number;
  /** Ω(θ; e), then θ ← Q(P_e(θ)) (or P_e alone when a schedule defers Q). */
  step(evidence: string): { omega: number; consolidated: boolean };
  /** What state readers see: θ itself, or the structured state's dense head (valid until the next step). */
  view(): Float64Array;
  /** The dense θ of the current state (on a dense run the state itself, which no step changes). */
  dense(): Float64Array;
  /** The dense θ of a {@link snapshot}. */
  denseOf(snapshot: unknown): Float64Array;
  /** θ0 when the run started from the system's own initial state. */
  initialDense(): Float64Array;
  /** An independent copy of the current state, reusing `previous`'s storage where the system can. */
  snapshot(previous: unknown): unknown;
  /** Ends the run: under a schedule, the expansions since the last Q are consolidated. */
  finish(): void;
}

/**
 * Ω(θ; e) and θ' = Q(P_e(θ)) by the best means the system declares: its `step` capability, else
 * its `orderGap` plus one Q(P_e θ), else the generic two-Q evaluation of Eq. (2). The result is
 * unvalidated only where the system's capability wrapper already checked it.
 */
export function stepSystem(
  system: OperatorSystem,
  theta: Float64Array,
  evidence: string,
): { omega: number; next: Float64Array } {
  const caps = system.capabilities;
  if (caps.step) return caps.step(theta, evidence);
  if (caps.orderGap) {
    const omega = caps.orderGap(theta, evidence);
    return { omega, next: system.consolidate(system.expand(evidence, theta)) };
  }
  const ev = evaluateOrderGapUnchecked(system, theta, evidence);
  return { omega: ev.omega, next: ev.expandThenConsolidate };
}

/** The dense θ of `system`, starting at `theta0`; every step makes a fresh θ, so keeping one is a copy. */
export function denseStepper(system: OperatorSystem, theta0: Float64Array): Stepper {
  let theta = theta0;
  let consolidations = 0;
  return {
    state: undefined,
    get consolidations() {
      return consolidations;
    },
    distribution: () => system.evidenceAt(theta),
    residual: (e) => referenceDistance(system.expand(e, theta), theta),
    step(e) {
      const s = stepSystem(system, theta, e);
      theta = s.next;
      consolidations++;
      return { omega: s.omega, consolidated: true };
    },
    view: () => theta,
    dense: () => theta,
    denseOf: (snapshot) => snapshot as Float64Array,
    initialDense: () => theta0,
    snapshot: () => theta,
    finish() {},
  };
}

/**
 * The system's structured state, from `theta0` (or its own initial state), changed in place.
 * With a schedule (> 0), Ω is the state's estimate and Q runs once the estimates accumulated
 * since the last consolidation exceed it.
 */
export function structuredStepper(
  system: OperatorSystem,
  st: StateCapability,
  theta0: Float64Array | null,
  schedule: number | null,
): Stepper {
  const state: unknown = theta0 !== null ? st.fromDense(theta0) : st.initial();
  let consolidations = 0;
  let accumulated = 0;
  return {
    state,
    get consolidations() {
      return consolidations;
    },
    distribution: () => st.evidenceAt(state),
    residual: (e) => st.residual!(state, e),
    step(e) {
      if (schedule === null) {
        consolidations++;
        return { omega: st.step(state, e), consolidated: true };
      }
      const omega = st.orderGapEstimate(state, e);
      st.expand(state, e);
      accumulated += omega;
      const consolidated = accumulated > schedule;
      if (consolidated) {
        st.consolidate(state);
        consolidations++;
        accumulated = 0;
      }
      return { omega, consolidated };
    },
    view: () => st.head(state),
    dense: () => st.toDense(state),
    denseOf: (snapshot) => st.toDense(snapshot),
    initialDense: () => st.toDense(st.initial()),
    snapshot: (previous) => (st.copyInto ? st.copyInto(state, previous) : st.copy(state)),
    finish() {
      if (schedule !== null && accumulated > 0) {
        // expansions since the last consolidation: the returned state is a consolidated one
        st.consolidate(state);
        consolidations++;
        accumulated = 0;
      }
    },
  };
}
