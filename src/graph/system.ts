/**
 * The reference graph operators as an {@link OperatorSystem} (the contract of src/system), so
 * Algorithm 1, the pool check and the certification run on them unchanged. Registered as the
 * built-in system `reference-graph` (default scenario).
 *
 * Subspaces: `confidence` (Nmax), `attributes` (k·Nmax), `edges:Supports|Requires|Contradicts`
 * (Nmax² each), `footprint` (the union of all items' blend footprints F_e). Questions: for each question
 * some item writes, the coordinates of q written by items (Supports edges into q's answers,
 * Requires edges into q); the certification uses the item-direction basis instead (Remark 5.4; docs/certify.md) — see
 * {@link questionBasis}.
 */
import { defineSystem } from '../system/define.js';
import { coordinateRange } from '../system/coordinates.js';
import { registerSystem } from '../system/registry.js';
import type {
  CoordinateSet,
  DescribeCapability,
  EvidenceWeight,
  OperatorSystem,
  SparseVector,
  StateCapability,
  TfConsolidate,
} from '../system/types.js';
import { ArgumentError } from '../util/errors.js';
import { graphBackends, referenceGraphBackend, wasmGraphBackend } from './operators/backend.js';
import { selectBackend, type BackendName } from '../wasm/backend.js';
import { evidenceDistribution } from './scenarios/evidence.js';
import { consolidateTf, expandTf, type GraphTfMap } from './linearisation/tfjs.js';
import { GraphConsolidateJacobian } from './linearisation/consolidateJacobian.js';
import { GraphExpandJacobian } from './linearisation/expandJacobian.js';
import { graphConsolidationEngine } from './linearisation/consolidationEngine.js';
import { graphOrderGap, graphStep } from './operators/orderGap.js';
import { isInitialized } from '../wasm/module.js';
import { attributeIndices, confidenceBlock, describeCoordinate, edgeBlock } from './model/layout.js';
import { EDGE_TYPES } from './model/model.js';
import type { LipschitzBound } from './operators/params.js';
import { confidenceLipschitzBound, DEFAULT_PARAMS } from './operators/params.js';
import { referenceConsolidate } from './operators/consolidate.js';
import { expandWriteSet, referenceExpand } from './operators/expand.js';
import { structuredFromSparse, type BuildProgress } from './state/state.js';
import { densify } from './operators/orderGap.js';
import { syntheticScenario, type SyntheticScenario, type SyntheticScenarioOptions } from './scenarios/synthetic.js';
import { describeCoordinate as describeIn } from './model/layout.js';
import {
  createScenario,
  defaultScenario,
  GRAPH_RUN_DEFAULTS,
  type Scenario,
  type ScenarioOptions,
} from './scenarios/scenario.js';
import { describeState, describeStructured } from './state/describe.js';
import type { AgentState, EvidenceInput } from './agent/agent.js';
import type { CompiledItem } from './operators/expand.js';
import type { GraphOperatorParams } from './operators/params.js';
import type { OperatorShape } from './model/shape.js';
import {
  copyStructured,
  copyStructuredInto,
  structuredConsolidate,
  structuredEntries,
  structuredExpand,
  structuredFromDense,
  structuredOrderGap,
  structuredResidual,
  structuredStep,
  structuredToDense,
  type StructuredGraphState,
} from './state/state.js';

/**
 * Union of all items' blend footprints F_e, ascending: the certification subspace `footprint`.
 * The entry coordinates (the confidences of the nodes items add) are not in it: they are
 * confidence coordinates, where DP_e is the identity once c >= c₀ (at the fixed point), and the
 * `confidence` subspace holds them. (`linearization.footprint(e)`, what P_e reads and writes,
 * does include them.)
 */
export function footprintUnion(scenario: Scenario): number[] {
  const s = new Set<number>();
  for (const it of scenario.items) for (const i of it.footprint) s.add(i);
  return [...s].sort((a, b) => a - b);
}

/** Per question id: the coordinates of q that some item writes, ascending. */
export function questionCoordinates(scenario: Scenario): Record<string, number[]> {
  const out: Record<string, Set<number>> = {};
  for (const it of scenario.items)
    for (const [q, idx] of it.questionCoordinates) {
      const id = scenario.layout.slots[q]!.id!;
      const set = (out[id] ??= new Set());
      for (const i of idx) set.add(i);
    }
  return Object.fromEntries(Object.entries(out).map(([q, s]) => [q, [...s].sort((a, b) => a - b)]));
}

/** One basis vector of W_q: the unit displacement of one item on q's coordinates. */
export interface QuestionDirection {
  readonly evidence: string;
  /** Unit vector in R^d (zero outside the coordinates of q this item writes). */
  readonly vector: Float64Array;
  /** ‖t_e − θ‖ on those coordinates before normalising; 0 means the item is incorporated there
   * and the direction fell back to the normalised indicator of the coordinates. */
  readonly displacement: number;
}

/**
 * W_q (Remark 5.4; docs/certify.md, per-question coverage) for the question `questionId`: one unit vector per pool item that writes q's
 * coordinates — that item's displacement target − θ on them. The vectors span W_q; they are
 * not orthogonalised (the certification takes an orthonormal basis). Cost O(|pool| · d).
 * @throws {ArgumentError} unknown question or θ of the wrong length.
 */
export function questionBasis(scenario: Scenario, theta: Float64Array, questionId: string): QuestionDirection[] {
  return questionDirections(scenario, theta, questionId).map((d) => {
    const v = new Float64Array(scenario.layout.dim);
    d.vector.index.forEach((i, k) => (v[i] = d.vector.value[k]!));
    return Object.freeze({ evidence: d.evidence, vector: v, displacement: d.displacement });
  });
}

/**
 * {@link questionBasis} with each vector sparse (its non-zeros are q's coordinates the item
 * writes): the same values, O(|pool| + coordinates) instead of O(|pool| · d). What the
 * certification's per-question subspaces are built from.
 */
function questionDirections(
  scenario: Scenario,
  theta: Float64Array,
  questionId: string,
): { evidence: string; vector: SparseVector; displacement: number }[] {
  const q = scenario.layout.slotOf.get(questionId);
  if (q === undefined || scenario.layout.slots[q]!.type !== 'question')
    throw new ArgumentError('questionId', questionId, 'is not a question of the scenario');
  if (theta.length !== scenario.layout.dim)
    throw new ArgumentError('theta', theta, `must have length d = ${scenario.layout.dim}`);
  const out: { evidence: string; vector: SparseVector; displacement: number }[] = [];
  for (const it of scenario.items) {
    const idx = it.questionCoordinates.get(q);
    if (!idx) continue;
    const v = new Map<number, number>(); // the dense vector's entries at idx (a repeated index written again)
    let norm2 = 0;
    for (const i of idx) {
      const t = it.target[it.footprint.indexOf(i)]!;
      v.set(i, t - theta[i]!);
      norm2 += v.get(i)! * v.get(i)!;
    }
    const displacement = Math.sqrt(norm2);
    if (displacement === 0) for (const i of idx) v.set(i, 1 / Math.sqrt(idx.length));
    else for (const i of idx) v.set(i, v.get(i)! / displacement);
    const index = Int32Array.from(v.keys()).sort();
    const vector = { dim: scenario.layout.dim, index, value: Float64Array.from(index, (i) => v.get(i)!) };
    out.push({ evidence: it.id, vector, displacement });
  }
  return out;
}

/**
 * The structured state of the reference operators as a system capability (./state/state.ts): the
 * node block dense, the edge blocks CSR + CSC. Its arithmetic is the reference form's (bit for
 * bit `referenceGraphBackend`; the wasm form agrees to 1e-12 relative). The scheduling estimate
 * is the neighbourhood pass, which is Ω exactly (`estimateIsExact`). `evidence` reads P(·|θ)
 * from the node block (the reference pool reads only confidences). `initial` is called once, on
 * the first `state.initial()`; every call returns a copy of that state with its merge index
 * (O(Nmax·k + nnz), no second indexing of the claims), kept while the capability lives.
 */
export function graphStateCapability(
  shape: OperatorShape,
  params: GraphOperatorParams,
  item: (id: string) => CompiledItem,
  evidence: (nodes: Float64Array) => readonly EvidenceWeight[],
  initial: () => StructuredGraphState,
): StateCapability<StructuredGraphState> {
  // built once (with its merge index), then copied with the index: a run and its report each
  // take an initial state without indexing the claims again
  let base: StructuredGraphState | null = null;
  return {
    initial: () => copyStructured((base ??= initial()), true),
    fromDense: (theta) => structuredFromDense(shape, params, theta),
    toDense: (st) => structuredToDense(shape, st),
    copy: (st) => copyStructured(st),
    copyInto: (st, into) => copyStructuredInto(st, into),
    head: (st) => st.nodes,
    step: (st, id) => structuredStep(shape, params, st, item(id)),
    orderGap: (st, id) => structuredOrderGap(shape, params, st, item(id)),
    orderGapEstimate: (st, id) => structuredOrderGap(shape, params, st, item(id)),
    estimateIsExact: true,
    expand: (st, id) => structuredExpand(shape, params, st, item(id)),
    consolidate: (st) => structuredConsolidate(shape, params, st),
    evidenceAt: (st) => evidence(st.nodes),
    bytes: (st) => st.bytes,
    entries: (st) => structuredEntries(shape, st),
    residual: (st, id) => structuredResidual(shape, st, item(id)),
  };
}

/**
 * What the run report says of a reference-graph system: its layout constants, pool size and the
 * analytic bound of Q on the confidence block; per state the stored edge weights and, when the
 * nodes have names (`scenario`), the state in words (./state/describe.ts). A state is the
 * structured one of {@link graphStateCapability}, or a dense θ.
 */
function graphDescribe(
  shape: OperatorShape,
  facts: { nodes: number; evidenceItems: number; confidenceLipschitzBound: number },
  scenario: Scenario | null,
  idOf: (slot: number) => string,
): DescribeCapability {
  // the first question's answers: what the answer-based rules read
  const root = [...shape.groups].sort((a, b) => a.question - b.question)[0];
  return {
    facts: () => ({ k: shape.k, nmax: shape.nmax, ...facts }),
    answer: (head) => {
      let best = -1;
      let confidence = 0;
      for (const a of root?.answers ?? []) {
        const c = head[a * (shape.k + 1) + shape.k]!;
        if (c > confidence) [best, confidence] = [a, c];
      }
      return { answer: best < 0 ? null : idOf(best), confidence: Math.min(1, confidence) };
    },
    ...(scenario
      ? {
          summary: (st: unknown, delta: number) =>
            st instanceof Float64Array
              ? describeState(scenario, st, delta)
              : describeStructured(scenario, st as StructuredGraphState, delta),
        }
      : {}),
    stateFacts: (st): Record<string, number> =>
      st instanceof Float64Array ? {} : { storedEdges: (st as StructuredGraphState).storedEdges },
  };
}

/** The fields a reference-graph system carries beside the operator contract. */
export interface ReferenceGraphExtras {
  readonly scenario: Scenario;
  /** The analytic contraction modulus of Q on the confidence block (./operators/params.ts). */
  readonly confidenceBound: LipschitzBound;
  /** Which form runs Q and P_e ('reference' or 'wasm'). */
  readonly backend: string;
}

/** A reference-graph system: the operator contract plus the scenario it was built from. */
export type ReferenceGraphSystem = OperatorSystem & ReferenceGraphExtras;

/** Options of {@link referenceGraphSystem}. */
export interface ReferenceGraphOptions {
  /**
   * The form that runs Q and P_e. Default: the wasm kernels when `init()` has completed before
   * the system is built (the library's convention, as for blas1 and linalg: Q is about twice as
   * fast there), else the TypeScript reference. The two agree to 1e-12 relative (tested in
   * test/graph/operators/forms.test.ts); a system keeps the form it was built with.
   */
  backend?: BackendName;
}

/**
 * The certification domain of the reference operators: confidences and edge weights live in
 * [0, 1] (the sigmoid update and the blends keep them there), attributes are free. The box of
 * block 'all' around θ is θ ± radius·max(1, |θ_i|) clipped to that domain.
 */
function domainBox(layout: Scenario['layout']) {
  return (block: string, theta: Float64Array, radius: number) => {
    if (block !== 'all') return undefined;
    const lower = new Float64Array(theta.length);
    const upper = new Float64Array(theta.length);
    for (let i = 0; i < theta.length; i++) {
      const x = theta[i]!;
      lower[i] = x - radius * Math.max(1, Math.abs(x));
      upper[i] = x + radius * Math.max(1, Math.abs(x));
    }
    const clip = (i: number) => {
      lower[i] = Math.max(0, lower[i]!);
      upper[i] = Math.min(1, upper[i]!);
    };
    for (const i of confidenceBlock(layout)) clip(i);
    // the three edge blocks are the contiguous tail of θ after the node block (layout.ts)
    for (let i = layout.edgeOffset; i < layout.dim; i++) clip(i);
    return { lower, upper };
  };
}

/**
 * The reference operators on `scenario` as a validated {@link OperatorSystem}, with every
 * capability of the contract declared: the structure-aware order-gap and the fused step of
 * ./operators/orderGap.ts (bit for bit the generic evaluation), the footprint of each P_e, the graph's resident DQ
 * engine (wasm, once `init()` has run), the tfjs forms, the analytic Lipschitz bound of Q on
 * the confidence block, the certification policy (subspaces confidence and footprint, W_q as
 * item-direction bases, the domain box, fixed point from where Algorithm 1 stops) and the
 * scenario's run parameters. P(·|θ) is the adaptive distribution of ./scenarios/evidence.ts.
 * Cost per Q: O(d + C²·mergeDims); per P_e: O(d).
 * @example
 * ```ts
 * const sys = referenceGraphSystem();           // default scenario
 * sys.dim;                                        // (k+1)·Nmax + 3·Nmax²
 * sys.describeCoordinate(sys.subspaces.confidence[0]); // 'c[...]'
 * ```
 */
export function referenceGraphSystem(
  scenario: Scenario = defaultScenario(),
  options: ReferenceGraphOptions = {},
): ReferenceGraphSystem {
  const { layout, shape, params } = scenario;
  const backend = selectBackend(graphBackends, options.backend);
  const subspaces: Record<string, CoordinateSet> = {
    confidence: confidenceBlock(layout),
    attributes: attributeIndices(layout),
    footprint: footprintUnion(scenario),
  };
  for (const t of EDGE_TYPES) subspaces[`edges:${t}`] = edgeBlock(layout, t);
  const item = (id: string) => {
    const it = scenario.itemById.get(id);
    if (!it)
      throw new ArgumentError(
        'evidenceId',
        id,
        `is not an evidence item of reference-graph (known: ${[...scenario.itemById.keys()].join(', ')})`,
      );
    return it;
  };
  let qTf: GraphTfMap | undefined;
  const absorbing = params.absorbRadius > 0;
  const eTf = new Map<string, GraphTfMap>();
  return defineSystem(
    {
      name: 'reference-graph',
      dim: layout.dim,
      theta0: scenario.theta0,
      consolidate: (theta) => backend.consolidate(shape, params, theta),
      // in place: the system's operators receive a fresh copy of θ (defineSystem's hygiene), and
      // P_e moves only F_e and the entry coordinates, so no second d-array is made per call
      expand: (id, theta) => backend.expand(item(id), theta, theta),
      evidence: (theta) => evidenceDistribution(scenario.items, layout, theta, scenario.pool.adaptiveGain),
      subspaces,
      questions: questionCoordinates(scenario),
      describeCoordinate: (i) => describeCoordinate(layout, i),
      // the structure-aware Ω of ./operators/orderGap.ts: bit for bit the generic evaluation with the
      // reference operators; the fused step only when Q runs as the reference (its `next`
      // must be this system's Q(P_e θ) bit for bit)
      orderGap: (theta, id) => graphOrderGap(shape, params, theta, item(id)),
      ...(backend === referenceGraphBackend
        ? { step: (theta: Float64Array, id: string) => graphStep(shape, params, theta, item(id)) }
        : {}),
      state: graphStateCapability(
        shape,
        params,
        item,
        (nodes) => evidenceDistribution(scenario.items, layout, nodes, scenario.pool.adaptiveGain),
        () => structuredFromDense(shape, params, scenario.theta0),
      ),
      linearization: {
        // what P_e reads and writes: F_e and the entry confidences (DP_e ≠ I there below c₀)
        footprint: (id) => expandWriteSet(item(id)),
        // DQ's engines and tfjs form are Q without the absorbing merge: with it on (h_a > 0), DQ
        // comes from differences of this system's own Q
        ...(absorbing
          ? {}
          : {
              consolidateJacobian: (x: Float64Array) =>
                isInitialized() ? new GraphConsolidateJacobian(scenario, x) : undefined,
              consolidateTf: ((tf, X) => (qTf ??= consolidateTf(shape, params))(tf, X)) as TfConsolidate,
            }),
        expandJacobian: (id, x) => (isInitialized() ? new GraphExpandJacobian(item(id), layout.dim, x) : undefined),
        expandTf: (tf, id, X) => {
          let m = eTf.get(id);
          if (!m) eTf.set(id, (m = expandTf(item(id), layout.dim)));
          return m(tf, X);
        },
      },
      lipschitz: {
        confidence: {
          bound: scenario.bound.modulus,
          derivation: '(1 − λ) + λ·L_T·L_g on the unit cube (src/graph/operators/params.ts, confidenceLipschitzBound)',
        },
      },
      certification: {
        subspaces: ['confidence', 'footprint'],
        questionSpaces: (theta) =>
          Object.keys(questionCoordinates(scenario)).map((q) => ({
            name: q,
            vectors: questionDirections(scenario, theta, q).map((d) => d.vector),
          })),
        boxes: { confidence: { lower: 0, upper: 1 } },
        boxAt: domainBox(layout),
        start: 'stop',
        // the wasm kernels on the edges by rows: bit for bit this system's Q when it runs as wasm
        ...(backend === wasmGraphBackend && !absorbing
          ? {
              consolidateOn: (base: Float64Array, block: ArrayLike<number>) =>
                isInitialized() ? graphConsolidationEngine(scenario, base, block) : undefined,
            }
          : {}),
      },
      runDefaults: scenario.run,
      describe: graphDescribe(
        shape,
        {
          nodes: scenario.graph.nodes.length,
          evidenceItems: scenario.items.length,
          confidenceLipschitzBound: scenario.bound.modulus,
        },
        scenario,
        (slot) => layout.slots[slot]!.id ?? `slot ${slot}`,
      ),
    },
    { scenario, confidenceBound: scenario.bound, backend: backend.name },
  );
}

/**
 * Where the coverage check of an agent's candidate stop runs (the `CheckSite` of a
 * `CoverageStopper`): the reference-graph system of the agent's current state with `candidates`
 * as its pool ({@link AgentState.scenarioWith}: P(·|θ) the adaptive distribution with gain
 * `adaptiveGain`, default 2), at the current θ. `candidates` defaults to every evidence item the
 * state has applied so far (`state.evidence`), as the adapters' default; pass the items the loop
 * could still draw (retrieved but not yet read) to let the check see them too.
 * Cost: a scenario of the state and the candidates (O(d) for θ).
 * @throws {ArgumentError} no candidates (an empty list, or the default before any item was
 *   applied): the check would have no pool, and is never skipped silently.
 * @throws {GraphFormatError} an invalid candidate.
 * @example
 * ```ts
 * await stopper.observe({ omega: state.step(item) }, () => agentCheckSite(state));
 * ```
 */
export function agentCheckSite(
  state: AgentState,
  candidates?: readonly EvidenceInput[],
  options: { adaptiveGain?: number } = {},
): { readonly system: ReferenceGraphSystem; readonly theta: Float64Array } {
  const pool = candidates ?? state.evidence;
  if (pool.length === 0)
    throw new ArgumentError(
      'candidates',
      candidates,
      candidates === undefined
        ? 'default to the evidence items the state has applied, and it has applied none: step the state first or pass the items the loop could draw'
        : 'must name at least one evidence item: the coverage check needs a pool (to stop on the rule alone, give the CoverageStopper policy: false)',
    );
  const scenario = state.scenarioWith(pool, options);
  return { system: referenceGraphSystem(scenario), theta: scenario.theta0 };
}

/** Parameters of the registry factory. */
export interface ReferenceGraphFactoryParams extends ScenarioOptions {
  /** Graph and evidence documents (default: the built-in scenario). */
  graph?: unknown;
  evidence?: unknown;
}

registerSystem(
  'reference-graph',
  'reference graph operators (Sec. 3.1; docs/graph.md) on the default multi-hop scenario',
  (p) => {
    const o = (p ?? {}) as ReferenceGraphFactoryParams;
    if ((o.graph === undefined) !== (o.evidence === undefined))
      throw new ArgumentError('params', p, 'give both graph and evidence documents, or neither');
    return referenceGraphSystem(o.graph === undefined ? defaultScenario(o) : createScenario(o.graph, o.evidence, o));
  },
);

/** Largest d for which a synthetic system also carries its dense θ0 (the oracle): 2^24 doubles. */
export const SYNTHETIC_DENSE_LIMIT = 2 ** 24;

/** Options of {@link syntheticGraphSystem}. */
export interface SyntheticSystemOptions extends SyntheticScenarioOptions {
  /** Operator parameters (default {@link DEFAULT_PARAMS}). */
  params?: GraphOperatorParams;
  /**
   * Follows the build of the structured state (the first `state.initial()`; later calls copy
   * it): claims indexed of all.
   */
  onStateBuild?: BuildProgress;
}

/** A synthetic reference-graph system: the operator contract plus its synthetic scenario. */
export type SyntheticGraphSystem = OperatorSystem & { readonly synthetic: SyntheticScenario };

/**
 * The reference operators on a synthetic scenario of any Nmax (./scenarios/synthetic.ts) as an
 * {@link OperatorSystem} whose run state is structured (`state` capability): P(·|θ) uniform over
 * the pool, subspaces as ranges, Q and P_e also on dense θ (the oracle), and θ0 declared densely
 * only while d <= {@link SYNTHETIC_DENSE_LIMIT} — beyond, a run starts from `state.initial()`.
 * Run defaults: {@link GRAPH_RUN_DEFAULTS}.
 * Cost: O(Nmax · edgesPerNode) to build (+ the merge grid).
 * @example
 * ```ts
 * const sys = syntheticGraphSystem(65536, { edgesPerNode: 10 });
 * runRecursive(sys, { epsilon: 0.01, window: 3, maxSteps: 100 }).stop.reason; // 'order-gap' (no θ_t kept at this d)
 * ```
 */
export function syntheticGraphSystem(nmax: number, options: SyntheticSystemOptions = {}): SyntheticGraphSystem {
  const sc = syntheticScenario(nmax, options);
  const { shape } = sc;
  const params = options.params ?? DEFAULT_PARAMS;
  const byId = new Map(sc.items.map((it) => [it.id, it]));
  const item = (id: string) => {
    const it = byId.get(id);
    if (!it)
      throw new ArgumentError(
        'evidenceId',
        id,
        `is not an evidence item of synthetic (known: ${[...byId.keys()].join(', ')})`,
      );
    return it;
  };
  const uniform = Object.freeze(sc.items.map((it) => Object.freeze({ id: it.id, p: 1 / sc.items.length })));
  const k1 = shape.k + 1;
  const layoutLike = {
    k: shape.k,
    nmax: shape.nmax,
    dim: shape.dim,
    edgeOffset: shape.edgeOffset,
    slots: Array.from({ length: shape.nmax }, (_, s) => ({
      id: `slot${s}`,
      type: s < shape.claims ? 'claim' : s < shape.firstQuestion ? 'answer' : 'question',
    })),
    firstSlot: { claim: 0, answer: shape.firstAnswer, question: shape.firstQuestion },
  } as unknown as Scenario['layout'];
  const subspaces: Record<string, CoordinateSet> = {
    confidence: coordinateRange(shape.k, shape.nmax, k1),
  };
  EDGE_TYPES.forEach((t, i) => {
    subspaces[`edges:${t}`] = coordinateRange(shape.edgeOffset + i * shape.nmax * shape.nmax, shape.nmax * shape.nmax);
  });
  return defineSystem(
    {
      name: `synthetic(Nmax=${nmax})`,
      dim: shape.dim,
      ...(shape.dim <= SYNTHETIC_DENSE_LIMIT ? { theta0: densify(shape, sc.state) } : {}),
      consolidate: (theta) => referenceConsolidate(shape, params, theta),
      expand: (id, theta) => referenceExpand(item(id), theta, theta), // in place on the hygienic copy
      evidence: uniform,
      subspaces,
      describeCoordinate: (i) => describeIn(layoutLike, i),
      state: graphStateCapability(
        shape,
        params,
        item,
        () => uniform,
        () => structuredFromSparse(shape, params, sc.state, options.onStateBuild),
      ),
      runDefaults: GRAPH_RUN_DEFAULTS,
      describe: graphDescribe(
        shape,
        {
          nodes: shape.nmax - 1,
          evidenceItems: sc.items.length,
          confidenceLipschitzBound: confidenceLipschitzBound(params, shape.maxAnswersPerQuestion).modulus,
        },
        null,
        (slot) => `slot${slot}`,
      ),
    },
    { synthetic: sc },
  );
}
