/**
 * Q of the reference graph operators evaluated many times on states that differ from a base
 * state only on the node block and on a given set E of edge coordinates (the certification's
 * fixed-point iteration and contraction search: the {@link ConsolidationEngine} of the system's
 * certification policy).
 *
 * Q copies every edge weight (../operators/consolidate.ts), so the states equal to the base off
 * the node block and E map to themselves and the engine's map is z ↦ Q(θ with θ_varying = z)_varying,
 * varying = node block ∪ E. The edge blocks stay in wasm memory by rows (every non-zero of the
 * base and every coordinate of E stored, a stored zero being skipped like an absent entry, so
 * the passes over the rows give the dense passes' sums bit for bit: assembly/graph/consolidate.ts).
 * An evaluation writes z's node block and its |E| edge values into wasm memory, recomputes the
 * structure sums (only when E is not empty: they read edges only), then the confidence-weighted
 * sums, the belief update and the merge — the stages of Q in ../operators/wasmConsolidate.ts, on
 * the same kernels, so the result is bit for bit the wasm Q's. Cost per evaluation
 * O((k+1)·Nmax + |E| + nnz + C²·mergeDims) instead of O(d) copies and two O(Nmax²) passes.
 */
import {
  checkConsolidated,
  edgeRowsOf,
  residentBlocks,
  WasmConsolidation,
  WasmEdgeRows,
} from '../operators/wasmConsolidate.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { ConsolidationEngine } from '../../system/types.js';
import { ArgumentError } from '../../util/errors.js';

/** E of `block` (its edge coordinates, ascending, as a mask over the 3·Nmax² edge coordinates too). */
function varyingEdges(
  block: ArrayLike<number>,
  nodeLength: number,
  d: number,
): { mask: Uint8Array; coords: Int32Array } {
  const mask = new Uint8Array(d - nodeLength);
  let count = 0;
  for (let k = 0; k < block.length; k++) {
    const j = block[k]!;
    if (!(Number.isInteger(j) && j >= 0 && j < d))
      throw new ArgumentError(`block[${k}]`, j, `must be an index in [0, ${d})`);
    if (j >= nodeLength && !mask[j - nodeLength]) {
      mask[j - nodeLength] = 1;
      count++;
    }
  }
  // ascending, read off the mask (no sort)
  const coords = new Int32Array(count);
  for (let e = 0, t = 0; t < count; e++) if (mask[e]) coords[t++] = nodeLength + e;
  return { mask, coords };
}

/**
 * The engine of the module comment for `base` and the edge coordinates among `block` (its node
 * coordinates are varying anyway). Holds O((k+1)·Nmax + nnz + |E|) wasm memory until
 * {@link ConsolidationEngine.release}.
 * @throws {ArgumentError} base of the wrong length, a block index outside [0, d).
 */
export function graphConsolidationEngine(
  scenario: Scenario,
  base: Float64Array,
  block: ArrayLike<number>,
): ConsolidationEngine {
  const { shape, params } = scenario;
  const nn = shape.nmax * shape.nmax;
  const nodeLen = shape.edgeOffset;
  const d = shape.dim;
  if (base.length !== d) throw new ArgumentError('base', base, `must have length ${d}`);
  const E = varyingEdges(block, nodeLen, d);
  const varying = new Int32Array(nodeLen + E.coords.length);
  for (let i = 0; i < nodeLen; i++) varying[i] = i;
  varying.set(E.coords, nodeLen);
  const host = edgeRowsOf(base, shape, E.mask); // host.kept: E's entries in their blocks' values
  // E's entries of block b are E[blockRange[b], blockRange[b + 1]) (E is ascending)
  // (a plain scan: E holds every edge coordinate on the whole space, a callback each costs)
  const blockRange = [0, 0, 0, 0];
  for (let b = 1, t = 0; b <= 3; b++) {
    while (t < E.coords.length && E.coords[t]! < nodeLen + b * nn) t++;
    blockRange[b] = t;
  }
  const { blocks, value: R } = residentBlocks((a) => ({
    q: new WasmConsolidation(a, shape, params),
    rows: new WasmEdgeRows(a, host, shape.nmax),
    node: a.from(base.subarray(0, nodeLen)),
    out: a.alloc(nodeLen),
  }));
  R.q.structureSums(R.rows); // the sums of the base's edges (recomputed per evaluation only when E varies)
  let released = false;
  const m = varying.length;
  return {
    varying,
    consolidate(z, out) {
      if (released) throw new ArgumentError('engine', 'released', 'was released: create a new one');
      if (z.length !== m) throw new ArgumentError('z', z, `must have length ${m}`);
      if (out.length !== m) throw new ArgumentError('out', out, `must have length ${m}`);
      R.node.view.set(z.subarray(0, nodeLen));
      for (let b = 0; b < 3; b++) {
        const vals = R.rows.vals[b]!.view;
        const [from, to] = [blockRange[b]!, blockRange[b + 1]!];
        // a block E covers whole is stored whole, in E's order: one block copy
        if (to - from === nn) vals.set(z.subarray(nodeLen + from, nodeLen + to));
        else for (let t = from; t < to; t++) vals[host.kept[t]!] = z[nodeLen + t]!;
      }
      R.q.consolidateNodes(R.node, R.rows, R.out, E.coords.length ? 'compute' : 'given');
      const o = R.out.view;
      checkConsolidated(o, nodeLen);
      out.set(o);
      // Q copies the edge weights
      out.set(z.subarray(nodeLen), nodeLen);
    },
    release() {
      if (released) return;
      released = true;
      blocks.free();
    },
  };
}
