/**
 * The reference operators as tfjs ops (float32), for autodiff: batched maps X [B, d] → [B, d]
 * in the `TfBatchMap` form of src/linearize/autodiff.ts. Same formulas as ../operators/consolidate.ts and
 * ../operators/expand.ts written with dense tensor ops (absent edges are exact zeros, so the dense sums
 * equal the sparse ones up to float32 rounding). Cost: O(B·Nmax²) memory for the edge tensors
 * and O(B·C²·mergeDims) for the merge — meant for the small scenarios certification works on.
 */
import type * as TfCore from '@tensorflow/tfjs-core';
import { ENTRY_CONFIDENCE, type CompiledItem } from '../operators/expand.js';
import type { GraphOperatorParams } from '../operators/params.js';
import type { OperatorShape } from '../model/shape.js';

/** The tfjs-core namespace. */
export type Tf = typeof TfCore;
/** A batched map X [B, d] → [B, d]. */
export type GraphTfMap = (tf: Tf, X: TfCore.Tensor2D) => TfCore.Tensor2D;

/** Q as a tfjs batched map. */
export function consolidateTf(shape: OperatorShape, p: GraphOperatorParams): GraphTfMap {
  const N = shape.nmax;
  const k = shape.k;
  const k1 = k + 1;
  const E0 = shape.edgeOffset;
  const nn = N * N;
  const C = shape.claims;
  const md = shape.mergeDims;
  const G = shape.groups.length;
  // constant tables
  const claimMask = Float32Array.from({ length: N }, (_, i) => (i < C ? 1 : 0));
  const questionMask = Float32Array.from({ length: N }, (_, i) => (i >= shape.firstQuestion ? 1 : 0));
  const member = new Float32Array(N * Math.max(G, 1)); // [N, G]: answer a in group g
  const inGroup = new Float32Array(N);
  const qa = new Float32Array(N * N); // [a, q] = 1 if a ∈ A(q)
  shape.groups.forEach((g, gi) => {
    for (const a of g.answers) {
      member[a * Math.max(G, 1) + gi] = 1;
      inGroup[a] = 1;
      qa[a * N + g.question] = 1;
    }
  });
  return (tf, X) =>
    tf.tidy(() => {
      const B = X.shape[0];
      const node = tf.reshape(tf.slice(X, [0, 0], [B, E0]), [B, N, k1]);
      const c = tf.reshape(tf.slice(node, [0, 0, k], [B, N, 1]), [B, N]);
      const edges = tf.slice(X, [0, E0], [B, 3 * nn]);
      const block = (t: number) => tf.reshape(tf.slice(edges, [0, t * nn], [B, nn]), [B, N, N]);
      const S = block(0);
      const R = block(1);
      const Xc = block(2);
      const eye = tf.eye(N);
      const diag = tf.sum(tf.mul(S, eye), 2); // S_jj
      const So = tf.mul(S, tf.sub(1, eye));
      const r = tf.sum(So, 2);
      const kin = tf.sum(So, 1);
      const kRel = tf.reshape(tf.matMul(tf.reshape(diag, [B, 1, N]), So), [B, N]);
      const XS = tf.add(Xc, tf.transpose(Xc, [0, 2, 1]));
      const d = tf.sum(XS, 2);
      const rho = tf.sum(R, 2);
      const kap = tf.sum(R, 1);
      const col = (v: TfCore.Tensor) => tf.reshape(v, [B, N, 1]);
      const row = (v: TfCore.Tensor) => tf.reshape(v, [B, 1, N]);
      const sup = tf.sum(tf.mul(tf.div(So, tf.add(tf.add(1, col(r)), row(kin))), col(c)), 1);
      const req = tf.sum(tf.mul(tf.div(R, tf.add(tf.add(1, col(rho)), row(kap))), row(c)), 2);
      const sig = tf.sigmoid(tf.div(tf.sub(row(c), col(c)), p.tauContradict)); // [i, j]: σ((c_j − c_i)/τ)
      const con = tf.sum(tf.mul(tf.mul(tf.div(XS, tf.add(tf.add(1, col(d)), row(d))), row(c)), sig), 2);
      // claims
      const zC = tf.sub(
        tf.sub(tf.add(tf.add(p.biasClaim, tf.mul(p.direct, diag)), tf.mul(p.support, sup)), tf.mul(p.contradict, con)),
        tf.mul(p.require, req),
      );
      const hC = tf.mul(tf.mul(diag, tf.sigmoid(zC)), tf.tensor1d(claimMask));
      // answers: softmax with "none" per group, then sharpening
      const M = tf.tensor2d(member, [N, Math.max(G, 1)]);
      const Mt = tf.transpose(M);
      const ing = tf.tensor1d(inGroup);
      const notIn = tf.sub(1, ing);
      const gate = tf.sub(1, tf.exp(tf.div(tf.neg(tf.add(kin, rho)), p.presenceScale)));
      const zA = tf.sub(
        tf.add(tf.add(p.biasAnswer, tf.div(tf.mul(p.answerSupport, kRel), tf.add(1, kRel))), tf.mul(p.support, sup)),
        tf.mul(p.require, req),
      );
      const num = tf.mul(tf.mul(gate, tf.exp(zA)), ing);
      const perSlot = (v: TfCore.Tensor) => tf.matMul(tf.matMul(v as TfCore.Tensor2D, M), Mt); // group sums back on slots
      const gA = tf.div(num, tf.add(tf.add(1, perSlot(num)), notIn));
      const mass = perSlot(gA);
      const sw = tf.mul(tf.mul(gate, tf.exp(tf.div(gA, p.tauAnswer))), ing);
      const sden = perSlot(sw);
      // sden = 0 only outside groups (notIn = 1 there) or where every gate of a group is 0, and then
      // sw = 0 too, so h = 0 as in the reference. The floor 1e-12 keeps sw/sden² finite in float32
      // for the gradient (`where(greater(...))` has no gradient in tfjs).
      const sdenSafe = tf.maximum(tf.add(sden, notIn), 1e-12);
      const hA = tf.add(tf.mul(1 - p.sharpen, gA), tf.div(tf.mul(tf.mul(p.sharpen, mass), sw), sdenSafe));
      // questions
      const answered = tf.matMul(c, tf.tensor2d(qa, [N, N]));
      const gateQ = tf.sub(1, tf.exp(tf.div(tf.neg(kap), p.presenceScale)));
      // diag at a question slot: S_qq, its resolution support
      const zQ = tf.sub(tf.sub(p.biasQuestion, tf.mul(p.resolve, answered)), tf.mul(p.promotion, diag));
      const hQ = tf.mul(tf.mul(gateQ, tf.sigmoid(zQ)), tf.tensor1d(questionMask));
      const h = tf.add(tf.add(hC, hA), hQ);
      const cNew = tf.add(tf.mul(1 - p.lambda, c), tf.mul(p.lambda, h));
      // merge of claims (first md attributes)
      let attrs = tf.slice(node, [0, 0, 0], [B, N, k]);
      if (C > 0 && md > 0 && p.mergeRate > 0) {
        const L = tf.slice(node, [0, 0, 0], [B, C, md]);
        const diff = tf.sub(tf.reshape(L, [B, 1, C, md]), tf.reshape(L, [B, C, 1, md])); // [i, j] = l_j − l_i
        const r2 = tf.sum(tf.square(diff), 3);
        const u = tf.relu(tf.sub(1, tf.div(r2, p.mergeRadius * p.mergeRadius)));
        const m = tf.slice(diag, [0, 0], [B, C]);
        const s = tf.mul(
          tf.mul(tf.mul(tf.reshape(m, [B, C, 1]), tf.reshape(m, [B, 1, C])), tf.mul(tf.square(u), u)),
          tf.sub(1, tf.eye(C)),
        );
        const total = tf.sum(s, 2);
        const pull = tf.sum(tf.mul(tf.reshape(s, [B, C, C, 1]), diff), 2);
        const Lnew = tf.add(L, tf.div(tf.mul(p.mergeRate, pull), tf.reshape(tf.add(1, total), [B, C, 1])));
        const claimAttrs = md < k ? tf.concat([Lnew, tf.slice(node, [0, 0, md], [B, C, k - md])], 2) : Lnew;
        attrs = C < N ? tf.concat([claimAttrs, tf.slice(node, [0, C, 0], [B, N - C, k])], 1) : claimAttrs;
      }
      const newNode = tf.reshape(tf.concat([attrs, tf.reshape(cNew, [B, N, 1])], 2), [B, E0]);
      return tf.concat([newNode, edges], 1) as TfCore.Tensor2D;
    });
}

/**
 * P_e as a tfjs batched map: X + r ⊙ (t − X) with r, t zero outside the footprint, and at each of
 * e's entry coordinates (disjoint from the footprint, so the blend leaves X there) the entry
 * confidence c + (c₀/3) u³ with u = relu(1 − c/c₀) (c₀ = ENTRY_CONFIDENCE), computed on that
 * one column and put back between slices of the blended rows: full-width operations are only the
 * blend's three, which matters to the interval evaluation of this form (P_e's interval form in
 * certify, src/interval), where every full-width operation is an interval operation on d columns.
 * Written with ops the interval namespace supports (slice, concat, relu, square, mul); relu's
 * kink at c = c₀ has a Clarke derivative there.
 */
export function expandTf(item: CompiledItem, dim: number): GraphTfMap {
  const rate = new Float32Array(dim);
  const target = new Float32Array(dim);
  item.footprint.forEach((f, i) => {
    rate[f] = item.rates[i]!;
    target[f] = item.target[i]!;
  });
  const entry = Array.from(item.entry); // ascending
  return (tf, X) =>
    tf.tidy(() => {
      const r = tf.tensor1d(rate);
      const t = tf.tensor1d(target);
      // outside F: X + 0·(0 − X) = X exactly
      const blended = tf.add(X, tf.mul(r, tf.sub(t, X)));
      if (entry.length === 0) return blended as TfCore.Tensor2D;
      const B = X.shape[0];
      const pieces: TfCore.Tensor[] = [];
      let from = 0;
      for (const j of entry) {
        if (j > from) pieces.push(tf.slice(blended, [0, from], [B, j - from]));
        const c = tf.slice(X, [0, j], [B, 1]);
        const u = tf.relu(tf.sub(1, tf.mul(c, 1 / ENTRY_CONFIDENCE))); // 2¹⁰: exact in float32
        pieces.push(tf.add(c, tf.mul(ENTRY_CONFIDENCE / 3, tf.mul(tf.square(u), u))));
        from = j + 1;
      }
      if (from < dim) pieces.push(tf.slice(blended, [0, from], [B, dim - from]));
      return tf.concat(pieces, 1) as TfCore.Tensor2D;
    });
}
