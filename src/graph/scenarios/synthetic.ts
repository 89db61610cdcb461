/**
 * Synthetic graph states of any size for tests and benchmarks: Nmax slots (80 % claims, 15 %
 * answers in pairs competing for one question, 5 % questions), ~`edgesPerNode` edges per node,
 * sparse edges in CSR, and one evidence item that adds a claim near an existing one (so the merge
 * path is exercised), supports an answer and decays a Requires edge. Deterministic per seed.
 */
import { embeddingDimension } from '../model/layout.js';
import type { CompiledItem } from '../operators/expand.js';
import type { CsrBlock } from '../operators/consolidate.js';
import type { SparseGraphState } from '../operators/orderGap.js';
import type { OperatorShape } from '../model/shape.js';

/** A synthetic problem. */
export interface SyntheticProblem {
  shape: OperatorShape;
  state: SparseGraphState;
  item: CompiledItem;
  /** Number of stored edge weights. */
  nnz: number;
}

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/**
 * CSR rows written in ascending row order, entries in any column order: {@link CsrBuilder.set}
 * of a column the row already holds replaces its value. Typed arrays of a given capacity, no
 * object per row or entry. O(entries · row length) for the in-row sort.
 */
export class CsrBuilder {
  private readonly rowStart: Int32Array;
  private readonly cols: Int32Array;
  private readonly vals: Float64Array;
  private row = 0;
  private len = 0;

  constructor(
    private readonly n: number,
    capacity: number,
  ) {
    this.rowStart = new Int32Array(n + 1);
    this.cols = new Int32Array(capacity);
    this.vals = new Float64Array(capacity);
  }

  /** Entry (j, i) = w; j must not be below a row written before. */
  set(j: number, i: number, w: number): void {
    if (j > this.row) this.advance(j);
    const { cols, vals } = this;
    // keep the row's entries sorted by column: insert i, or replace its value
    let e = this.len;
    const start = this.rowStart[j]!;
    while (e > start && cols[e - 1]! > i) e--;
    if (e > start && cols[e - 1] === i) {
      vals[e - 1] = w;
      return;
    }
    cols.copyWithin(e + 1, e, this.len);
    vals.copyWithin(e + 1, e, this.len);
    cols[e] = i;
    vals[e] = w;
    this.len++;
  }

  /** Closes the rows before `j` (rows without entries included). */
  private advance(j: number): void {
    for (let r = this.row + 1; r <= j; r++) this.rowStart[r] = this.len;
    this.row = j;
  }

  /** The CSR block (arrays trimmed to the entries written). */
  finish(): CsrBlock {
    this.advance(this.n);
    return { rowStart: this.rowStart, cols: this.cols.slice(0, this.len), vals: this.vals.slice(0, this.len) };
  }
}

/** The operator shape of a synthetic layout with Nmax slots and attribute dimension k. */
export function syntheticShape(nmax: number, k: number): OperatorShape {
  const questions = Math.max(1, Math.floor(nmax * 0.05));
  const answers = Math.min(2 * questions, Math.floor(nmax * 0.15));
  const claims = nmax - answers - questions;
  const firstAnswer = claims;
  const firstQuestion = claims + answers;
  const answerQuestion = new Int32Array(answers).fill(-1);
  const groups: { question: number; answers: Int32Array }[] = [];
  const questionGroup = new Int32Array(questions).fill(-1);
  for (let q = 0; q < questions; q++) {
    const list: number[] = [];
    for (const a of [2 * q, 2 * q + 1]) if (a < answers) list.push(firstAnswer + a);
    if (list.length === 0) continue;
    list.forEach((a) => (answerQuestion[a - firstAnswer] = firstQuestion + q));
    questionGroup[q] = groups.length;
    groups.push({ question: firstQuestion + q, answers: Int32Array.from(list) });
  }
  return {
    k,
    nmax,
    claims,
    firstAnswer,
    firstQuestion,
    edgeOffset: (k + 1) * nmax,
    dim: embeddingDimension(k, nmax),
    mergeDims: k >= 2 ? k - 1 : k,
    answerQuestion,
    questionGroup,
    groups,
    maxAnswersPerQuestion: groups.reduce((m, g) => Math.max(m, g.answers.length), 0),
  };
}

/**
 * Builds a synthetic problem. The last claim slot is left empty for the item's new claim.
 * @example
 * ```ts
 * const { shape, state, item } = syntheticProblem(1024, 8, 10, 1);
 * graphOrderGapSparse(shape, DEFAULT_PARAMS, state, item); // Ω (Eq. 2), ../operators/orderGap.ts
 * ```
 */
export function syntheticProblem(nmax: number, k: number, edgesPerNode: number, seed: number): SyntheticProblem {
  const shape = syntheticShape(nmax, k);
  const rnd = rng(seed);
  const k1 = k + 1;
  const n = nmax;
  const nodes = new Float64Array(k1 * n);
  const spread = 4; // attributes in [0, 4)^k: few claims within the merge radius of each other
  const present = (s: number) => s !== shape.claims - 1;
  for (let s = 0; s < n; s++) {
    if (!present(s)) continue;
    for (let t = 0; t < k - 1; t++) nodes[s * k1 + t] = spread * rnd();
    nodes[s * k1 + k - 1] = rnd(); // source code
    nodes[s * k1 + k] = s >= shape.firstAnswer && s < shape.firstQuestion ? 0.45 * rnd() + 0.01 : 0.98 * rnd() + 0.01;
  }
  const supportsPerClaim = Math.max(1, edgesPerNode - 3);
  const nq = n - shape.firstQuestion;
  // rows are written in ascending order in every block; a column a row already holds keeps its
  // last value, as a map's set would
  const blocks = [
    new CsrBuilder(n, shape.claims * (1 + supportsPerClaim)),
    new CsrBuilder(n, shape.claims + (shape.firstQuestion - shape.firstAnswer)),
    new CsrBuilder(n, shape.claims),
  ] as const;
  for (let j = 0; j < shape.claims; j++) {
    if (!present(j)) continue;
    blocks[0].set(j, j, 0.3 + 0.7 * rnd());
    for (let e = 0; e < supportsPerClaim; e++) {
      const i = Math.floor(rnd() * shape.firstQuestion);
      if (i !== j && present(i)) blocks[0].set(j, i, 0.05 + 0.95 * rnd());
    }
    const x = Math.floor(rnd() * shape.claims);
    if (x !== j && present(x)) blocks[2].set(j, x, 0.1 + 0.9 * rnd());
    if (rnd() < 0.5) blocks[1].set(j, shape.firstQuestion + Math.floor(rnd() * nq), 0.2 + 0.8 * rnd());
  }
  for (let a = shape.firstAnswer; a < shape.firstQuestion; a++) {
    const q = shape.answerQuestion[a - shape.firstAnswer]!;
    if (q >= 0) blocks[1].set(a, q, 1);
  }
  const csr = blocks.map((b) => b.finish()) as [CsrBlock, CsrBlock, CsrBlock];
  const nnz = csr[0].cols.length + csr[1].cols.length + csr[2].cols.length;
  // the item: a new claim in the empty slot, near claim 0 (a near-duplicate), supporting an
  // answer and claim 1, contradicting claim 2, and decaying the Requires edge of that answer
  const slot = shape.claims - 1;
  const E0 = shape.edgeOffset;
  const nn = n * n;
  const entries = new Map<number, [number, number]>();
  const strength = 0.7;
  for (let t = 0; t < k; t++) entries.set(slot * k1 + t, [1, t < k - 1 ? nodes[t]! + 0.01 * (t + 1) * 0.1 : 0.5]);
  entries.set(E0 + slot * n + slot, [strength, 0.9]);
  const answer = shape.firstAnswer;
  entries.set(E0 + slot * n + answer, [strength, 0.8]);
  entries.set(E0 + slot * n + 1, [strength, 0.6]);
  entries.set(E0 + 2 * nn + slot * n + 2, [strength, 0.7]);
  const q = shape.answerQuestion[0]!;
  if (q >= 0) entries.set(E0 + nn + answer * n + q, [strength, 0]);
  const keys = [...entries.keys()].sort((a, b) => a - b);
  // indices pass 2^31 beyond Nmax ≈ 26 000 (d = 9·Nmax + 3·Nmax²): int32 only while they fit
  const footprint = shape.dim <= 2 ** 31 - 1 ? Int32Array.from(keys) : Float64Array.from(keys);
  const item: CompiledItem = {
    id: 'synthetic',
    strength,
    footprint,
    rates: Float64Array.from(footprint, (i) => entries.get(i)![0]),
    target: Float64Array.from(footprint, (i) => entries.get(i)![1]),
    entry: Int32Array.of(slot * k1 + k),
  };
  return { shape, state: { nodes, edges: csr }, item, nnz };
}

/** A synthetic scenario: a synthetic problem with a pool of several evidence items. */
export interface SyntheticScenario extends SyntheticProblem {
  /** The pool: {@link syntheticProblem}'s item first, then items that edit existing claims. */
  items: CompiledItem[];
}

/** Options of {@link syntheticScenario}. */
export interface SyntheticScenarioOptions {
  /** Attribute dimension k (default 8). */
  k?: number;
  /** ~ edges per node (default 10). */
  edgesPerNode?: number;
  /** Pool size (default 8). */
  items?: number;
  /** Seed (default 1). */
  seed?: number;
}

/**
 * A synthetic scenario at any Nmax: {@link syntheticProblem} plus `items − 1` further items,
 * each moving one claim's text attributes next to another claim's (a near-duplicate: the merge
 * acts), supporting an answer from it, contradicting another claim and decaying that answer's
 * Requires edge. Deterministic per seed; O(Nmax · edgesPerNode).
 * @example
 * ```ts
 * const sc = syntheticScenario(4096, { edgesPerNode: 10 });
 * sc.items.length; // 8
 * ```
 */
export function syntheticScenario(nmax: number, options: SyntheticScenarioOptions = {}): SyntheticScenario {
  const k = options.k ?? 8;
  const seed = options.seed ?? 1;
  const base = syntheticProblem(nmax, k, options.edgesPerNode ?? 10, seed);
  const { shape, state } = base;
  const rnd = rng(seed ^ 0x5bd1e995);
  const k1 = k + 1;
  const n = nmax;
  const nn = n * n;
  const E0 = shape.edgeOffset;
  const claims = shape.claims - 1; // the last claim slot is the first item's new claim
  const answers = shape.firstQuestion - shape.firstAnswer;
  const items: CompiledItem[] = [base.item];
  for (let m = 1; m < (options.items ?? 8); m++) {
    const entries = new Map<number, [number, number]>();
    const j = Math.floor(rnd() * claims);
    const near = Math.floor(rnd() * claims);
    const strength = 0.5 + 0.4 * rnd();
    for (let t = 0; t < k - 1; t++) entries.set(j * k1 + t, [1, state.nodes[near * k1 + t]! + 0.05 * (rnd() - 0.5)]);
    if (answers > 0) {
      const a = shape.firstAnswer + Math.floor(rnd() * answers);
      entries.set(E0 + j * n + a, [strength, 0.5 + 0.5 * rnd()]);
      const q = shape.answerQuestion[a - shape.firstAnswer]!;
      if (q >= 0) entries.set(E0 + nn + a * n + q, [strength, 0]);
    }
    const x = Math.floor(rnd() * claims);
    if (x !== j) entries.set(E0 + 2 * nn + j * n + x, [strength, 0.3 + 0.7 * rnd()]);
    const keys = [...entries.keys()].sort((a, b) => a - b);
    const footprint = shape.dim <= 2 ** 31 - 1 ? Int32Array.from(keys) : Float64Array.from(keys);
    items.push({
      id: `synthetic-${m}`,
      strength,
      footprint,
      rates: Float64Array.from(footprint, (i) => entries.get(i)![0]),
      target: Float64Array.from(footprint, (i) => entries.get(i)![1]),
      entry: new Int32Array(0),
    });
  }
  return { ...base, items };
}
