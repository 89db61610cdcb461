/**
 * Q of the reference graph operators evaluated many times on states that differ from a base
 * state only on the node block and on a given set E of edge coordinates (the certification's
 * fixed-point iteration and contraction search: the {@link ConsolidationEngine} of the system's
 * certification policy).
 *
 * Q copies every edge weight (../operators/consolidate.ts), so the states equal to the base off the node
 * block and E map to themselves and the engine's map is z ↦ Q(θ with θ_varying = z)_varying,
 * varying = node block ∪ E. The edge blocks stay in wasm memory by rows (every non-zero of the
 * base and every coordinate of E stored, a stored zero being skipped like an absent entry, so
 * the passes over the rows give the dense passes' sums bit for bit: assembly/graph/rows.ts).
 * An evaluation writes z's node block and its |E| edge values into wasm memory, recomputes the
 * structure sums (only when E is not empty: they read edges only), then the confidence-weighted
 * sums, the belief update and the merge — the stages of {@link wasmConsolidateNodeBlock}, on the
 * same kernels, so the result is bit for bit the wasm Q's. Cost per evaluation
 * O((k+1)·Nmax + |E| + nnz + C²·mergeDims) instead of O(d) copies and two O(Nmax²) passes.
 */
import { groupTables, packParams, type GraphKernels } from '../operators/backend.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { ConsolidationEngine } from '../../system/types.js';
import { ArgumentError } from '../../util/errors.js';
import { firstNonFinite } from '../../util/validate.js';
import type { ArenaBlock, F64Block, I32Block } from '../../wasm/arena.js';
import { wasm, type KernelExports } from '../../wasm/module.js';

type EngineKernels = GraphKernels & Pick<KernelExports, 'gcsrsums' | 'gcsrweighted'>;

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
  const n = shape.nmax;
  const nn = n * n;
  const k1 = shape.k + 1;
  const nodeLen = shape.edgeOffset;
  const d = shape.dim;
  if (base.length !== d) throw new ArgumentError('base', base, `must have length ${d}`);
  const forced = new Uint8Array(3 * nn);
  let edgeCount = 0;
  for (let k = 0; k < block.length; k++) {
    const j = block[k]!;
    if (!(Number.isInteger(j) && j >= 0 && j < d))
      throw new ArgumentError(`block[${k}]`, j, `must be an index in [0, ${d})`);
    if (j >= nodeLen && !forced[j - nodeLen]) {
      forced[j - nodeLen] = 1;
      edgeCount++;
    }
  }
  // E ascending, read off the mask (no sort)
  const edgeCoords = new Int32Array(edgeCount);
  for (let e = 0, t = 0; t < edgeCount; e++) if (forced[e]) edgeCoords[t++] = nodeLen + e;
  const varying = new Int32Array(nodeLen + edgeCoords.length);
  for (let i = 0; i < nodeLen; i++) varying[i] = i;
  varying.set(edgeCoords, nodeLen);
  // rows of the three blocks: the base's non-zeros and E, ascending within each row
  const valueAt = new Int32Array(edgeCoords.length); // E's entry → index into its block's values
  const rows = [0, 1, 2].map((b) => {
    const o = nodeLen + b * nn;
    let nnz = 0;
    for (let e = 0; e < nn; e++) if (base[o + e] !== 0 || forced[b * nn + e]) nnz++;
    const start = new Int32Array(n + 1);
    const col = new Int32Array(Math.max(1, nnz));
    const val = new Float64Array(Math.max(1, nnz));
    let k = 0;
    for (let j = 0; j < n; j++) {
      start[j] = k;
      for (let i = 0; i < n; i++) {
        const w = base[o + j * n + i]!;
        if (w === 0 && !forced[b * nn + j * n + i]) continue;
        col[k] = i;
        val[k++] = w;
      }
    }
    start[n] = k;
    return { start, col, val };
  });
  // E and each block's stored entries are both ascending (row-major): one merge finds them all
  const cursor = [0, 0, 0];
  for (let t = 0; t < edgeCoords.length; t++) {
    const e = edgeCoords[t]! - nodeLen;
    const b = Math.floor(e / nn);
    const j = Math.floor((e - b * nn) / n);
    const i = e - b * nn - j * n;
    const r = rows[b]!;
    let p = Math.max(cursor[b]!, r.start[j]!);
    while (r.col[p] !== i) p++;
    valueAt[t] = p;
    cursor[b] = p + 1;
  }
  // E's entries of block b are E[blockRange[b], blockRange[b + 1]) (E is ascending)
  const blockRange = [0, 0, 0, edgeCoords.length];
  for (let b = 1; b < 3; b++) {
    let t = blockRange[b - 1]!;
    while (t < edgeCoords.length && edgeCoords[t]! < nodeLen + b * nn) t++;
    blockRange[b] = t;
  }
  const active = Array.from({ length: n }, (_, j) => j).filter((j) => rows.some((r) => r.start[j + 1]! > r.start[j]!));

  const { arena } = wasm();
  const all: ArenaBlock[] = [];
  const keep = <B extends ArenaBlock>(b: B): B => {
    all.push(b);
    return b;
  };
  let blocks: {
    vals: F64Block[];
    csr: I32Block;
    active: I32Block;
    node: F64Block;
    out: F64Block;
    c: F64Block;
    cNew: F64Block;
    sums: F64Block;
    ws: F64Block;
    scratch: F64Block;
    pull: F64Block;
    p: F64Block;
    gstart: I32Block;
    gans: I32Block;
    qgroup: I32Block;
    rc: I32Block;
    rv: F64Block;
  };
  try {
    const tables = groupTables(shape);
    const rowBlocks = rows.map(
      (r) => [keep(arena.fromI32(r.start)), keep(arena.fromI32(r.col)), keep(arena.from(r.val))] as const,
    );
    blocks = {
      vals: rowBlocks.map((r) => r[2]),
      csr: keep(arena.fromI32(rowBlocks.flatMap((r) => r.map((b) => b.ptr)))),
      active: keep(arena.fromI32(active.length ? active : [0])),
      node: keep(arena.from(base.subarray(0, nodeLen))),
      out: keep(arena.alloc(nodeLen)),
      c: keep(arena.alloc(n)),
      cNew: keep(arena.alloc(n)),
      sums: keep(arena.alloc(7 * n)),
      ws: keep(arena.alloc(3 * n)),
      scratch: keep(arena.alloc(n + 4 * shape.maxAnswersPerQuestion + 1)),
      pull: keep(arena.alloc(Math.max(1, shape.mergeDims))),
      p: keep(arena.from(packParams(params))),
      gstart: keep(arena.fromI32(tables.gstart)),
      gans: keep(arena.fromI32(tables.gans.length ? tables.gans : [0])),
      qgroup: keep(arena.fromI32(tables.qgroup.length ? tables.qgroup : [0])),
      rc: keep(arena.allocI32(n)),
      rv: keep(arena.alloc(n)),
    };
  } catch (e) {
    for (const b of all) if (!b.freed) arena.free(b);
    throw e;
  }
  const B = blocks;
  const k: EngineKernels = wasm().exports;
  const sumsOfEdges = () =>
    k.gcsrsums(n, B.csr.ptr, B.active.ptr, active.length, -1, 0, 0, 0, B.rc.ptr, B.rv.ptr, B.sums.ptr);
  sumsOfEdges(); // the sums of the base's edges (recomputed per evaluation only when E varies)
  let released = false;
  const m = varying.length;
  return {
    varying,
    consolidate(z, out) {
      if (released) throw new ArgumentError('engine', 'released', 'was released: create a new one');
      if (z.length !== m) throw new ArgumentError('z', z, `must have length ${m}`);
      if (out.length !== m) throw new ArgumentError('out', out, `must have length ${m}`);
      const node = B.node.view;
      node.set(z.subarray(0, nodeLen));
      const cv = B.c.view;
      for (let sl = 0; sl < n; sl++) cv[sl] = z[sl * k1 + shape.k]!;
      if (edgeCoords.length) {
        for (let b = 0; b < 3; b++) {
          const vals = B.vals[b]!.view;
          const [from, to] = [blockRange[b]!, blockRange[b + 1]!];
          // a block E covers whole is stored whole, in E's order: one block copy
          if (to - from === nn) vals.set(z.subarray(nodeLen + from, nodeLen + to));
          else for (let t = from; t < to; t++) vals[valueAt[t]!] = z[nodeLen + t]!;
        }
        sumsOfEdges();
      }
      k.gcsrweighted(
        n,
        B.csr.ptr,
        B.active.ptr,
        active.length,
        -1,
        0,
        0,
        0,
        B.rc.ptr,
        B.rv.ptr,
        B.c.ptr,
        B.sums.ptr,
        params.tauContradict,
        B.ws.ptr,
      );
      k.gqbelief(
        n,
        shape.claims,
        shape.firstQuestion,
        B.c.ptr,
        B.sums.ptr,
        B.ws.ptr,
        B.p.ptr,
        shape.groups.length,
        B.gstart.ptr,
        B.gans.ptr,
        B.qgroup.ptr,
        B.scratch.ptr,
        B.cNew.ptr,
      );
      const ov = B.out.view;
      ov.set(B.node.view);
      k.gqmerge(
        B.node.ptr,
        k1,
        shape.claims,
        shape.mergeDims,
        B.sums.ptr,
        params.mergeRate,
        params.mergeRadius * params.mergeRadius,
        B.pull.ptr,
        B.out.ptr,
      );
      const cn = B.cNew.view;
      const o = B.out.view;
      for (let sl = 0; sl < n; sl++) o[sl * k1 + shape.k] = cn[sl]!;
      const bad = firstNonFinite(o, 0, nodeLen);
      if (bad >= 0) throw new ArgumentError(`reference-graph: consolidate(theta)[${bad}]`, o[bad], 'must be finite');
      out.set(o);
      // Q copies the edge weights
      out.set(z.subarray(nodeLen), nodeLen);
    },
    release() {
      if (released) return;
      released = true;
      for (const b of all) if (!b.freed) arena.free(b);
    },
  };
}
