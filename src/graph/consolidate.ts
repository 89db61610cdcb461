/**
 * The reference consolidation operator Q on the embedded graph (MATH.md §6), pure TypeScript,
 * f64. Q derives confidences from structure, merges near-duplicate claims and sharpens each
 * question's answers; it leaves every edge weight unchanged. Empty slots (all zeros) stay
 * exactly zero. Formulas (S, R, X the Supports, Requires, Contradicts blocks; c confidences):
 *
 *   structure sums (first pass): r_j = Σ_{i≠j} S_ji, k_i = Σ_{j≠i} S_ji, d_i = Σ_j (X_ij + X_ji),
 *                   ρ_j = Σ_q R_jq, κ_q = Σ_j R_jq
 *   normalised:     Ŝ_ji = S_ji/(1 + r_j + k_i) (j ≠ i),  X̂_ij = (X_ij + X_ji)/(1 + d_i + d_j),
 *                   R̂_jq = R_jq/(1 + ρ_j + κ_q)   — all with spectral norm <= 1
 *   claim i:   z_i = b_C + b_d S_ii + b_s Σ_j Ŝ_ji c_j − b_x Σ_j X̂_ij c_j σ((c_j − c_i)/τ_x)
 *                    − b_r Σ_q R̂_iq c_q,           g_i = S_ii σ(z_i)
 *   answer a (question q):  z_a = b_A + b_in k̃_a/(1 + k̃_a) + b_s Σ_j Ŝ_ja c_j − b_r Σ_q R̂_aq c_q,
 *              k̃_a = Σ_{j≠a} S_ja S_jj (support weighted by the sources' reliability; structure only),
 *              m_a = 1 − exp(−(k_a + ρ_a)/ω),  g_a = m_a e^{z_a} / (1 + Σ_{b∈A(q)} m_b e^{z_b})
 *   question q: m_q = 1 − exp(−κ_q/ω),  g_q = m_q σ(b_Q − b_res Σ_{a∈A(q)} c_a)   (openness)
 *   sharpen:   G = Σ_{A(q)} g,  s_a = m_a e^{g_a/τ_a} / Σ_b m_b e^{g_b/τ_a},
 *              h_a = (1 − η) g_a + η G s_a   (mass-preserving: Σ h = G <= 1)
 *   update:    c' = (1 − λ) c + λ h          (h = g outside answers)
 *   merge (claims, first mergeDims attributes ℓ̃):  s_ij = S_ii S_jj (1 − ‖ℓ̃_i − ℓ̃_j‖²/h²)_+³,
 *              ℓ̃_i' = ℓ̃_i + μ Σ_j s_ij (ℓ̃_j − ℓ̃_i) / (1 + Σ_j s_ij)
 *
 * The Lipschitz bound of c ↦ c' is in ./params.ts. Cost: O(Nmax²) for the edge sums (two
 * streaming passes over the edge block; exact zeros are skipped, which changes no sum) plus
 * O(C² · mergeDims) for merging C claim slots.
 */
import type { GraphOperatorParams } from './params.js';
import type { OperatorShape } from './shape.js';

/** σ(z) = 1/(1 + e^{−z}). */
export function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

/** Structure sums of the edge block (everything Q needs from edges except the c-weighted sums). */
export interface StructureSums {
  /** S_ii. */
  diag: Float64Array;
  /** r_j: off-diagonal Supports out-sum. */
  supportOut: Float64Array;
  /** k_i: off-diagonal Supports in-sum. */
  supportIn: Float64Array;
  /** d_i: symmetric Contradicts degree. */
  contradictDegree: Float64Array;
  /** ρ_j: Requires out-sum. */
  requireOut: Float64Array;
  /** κ_q: Requires in-sum. */
  requireIn: Float64Array;
  /** k̃_i = Σ_{j≠i} S_ji S_jj: in-support weighted by the sources' direct support. */
  reliableIn: Float64Array;
}

/** One streaming pass over the edge block of θ computing {@link StructureSums}. O(Nmax²). */
export function structureSums(shape: OperatorShape, theta: Float64Array): StructureSums {
  const n = shape.nmax;
  const nn = n * n;
  const sB = shape.edgeOffset;
  const rB = sB + nn;
  const xB = sB + 2 * nn;
  const out: StructureSums = {
    diag: new Float64Array(n),
    supportOut: new Float64Array(n),
    supportIn: new Float64Array(n),
    contradictDegree: new Float64Array(n),
    requireOut: new Float64Array(n),
    requireIn: new Float64Array(n),
    reliableIn: new Float64Array(n),
  };
  for (let j = 0; j < n; j++) {
    const row = j * n;
    const sjj = theta[sB + row + j]!;
    out.diag[j] = sjj;
    for (let i = 0; i < n; i++) {
      const w = theta[sB + row + i]!;
      if (w === 0 || i === j) continue;
      out.supportOut[j] = out.supportOut[j]! + w;
      out.supportIn[i] = out.supportIn[i]! + w;
      out.reliableIn[i] = out.reliableIn[i]! + w * sjj;
    }
    for (let q = 0; q < n; q++) {
      const w = theta[rB + row + q]!;
      if (w === 0) continue;
      out.requireOut[j] = out.requireOut[j]! + w;
      out.requireIn[q] = out.requireIn[q]! + w;
    }
    for (let i = 0; i < n; i++) {
      const w = theta[xB + row + i]!;
      if (w === 0) continue;
      out.contradictDegree[j] = out.contradictDegree[j]! + w;
      out.contradictDegree[i] = out.contradictDegree[i]! + w;
    }
  }
  return out;
}

/** The c-weighted edge sums of the logits. */
export interface WeightedSums {
  /** Σ_j Ŝ_ji c_j. */
  support: Float64Array;
  /** Σ_j X̂_ij c_j σ((c_j − c_i)/τ_x). */
  contradict: Float64Array;
  /** Σ_q R̂_iq c_q. */
  require: Float64Array;
}

/** Second streaming pass: the c-weighted, normalised sums. O(Nmax²). */
export function weightedSums(
  shape: OperatorShape,
  params: GraphOperatorParams,
  theta: Float64Array,
  c: Float64Array,
  s: StructureSums,
): WeightedSums {
  const n = shape.nmax;
  const nn = n * n;
  const sB = shape.edgeOffset;
  const rB = sB + nn;
  const xB = sB + 2 * nn;
  const support = new Float64Array(n);
  const contradict = new Float64Array(n);
  const require = new Float64Array(n);
  const tau = params.tauContradict;
  for (let j = 0; j < n; j++) {
    const row = j * n;
    const cj = c[j]!;
    const rj = 1 + s.supportOut[j]!;
    for (let i = 0; i < n; i++) {
      const w = theta[sB + row + i]!;
      if (w === 0 || i === j) continue;
      support[i] = support[i]! + (w * cj) / (rj + s.supportIn[i]!);
    }
    const pj = 1 + s.requireOut[j]!;
    let acc = 0;
    for (let q = 0; q < n; q++) {
      const w = theta[rB + row + q]!;
      if (w === 0) continue;
      acc += (w * c[q]!) / (pj + s.requireIn[q]!);
    }
    require[j] = acc;
    const dj = 1 + s.contradictDegree[j]!;
    for (let i = 0; i < n; i++) {
      const w = theta[xB + row + i]!;
      if (w === 0) continue;
      const f = w / (dj + s.contradictDegree[i]!);
      const ci = c[i]!;
      contradict[j] = contradict[j]! + f * ci * sigmoid((ci - cj) / tau);
      contradict[i] = contradict[i]! + f * cj * sigmoid((cj - ci) / tau);
    }
  }
  return { support, contradict, require };
}

/**
 * New confidences c' from θ's confidences, structure sums and weighted sums (the belief update,
 * the answer softmax-with-none, the sharpening). Writes Nmax values into `out`. O(Nmax).
 */
export function confidenceUpdate(
  shape: OperatorShape,
  p: GraphOperatorParams,
  c: Float64Array,
  s: StructureSums,
  ws: WeightedSums,
  out: Float64Array,
  only?: readonly number[],
): void {
  const n = shape.nmax;
  const h = new Float64Array(n);
  // `only` (ascending slots): compute just these slots and their answer groups; each slot's
  // value is computed by exactly the same operations as in the full update.
  const claimSlots = only ? only.filter((i) => i < shape.claims) : null;
  const nClaims = claimSlots ? claimSlots.length : shape.claims;
  for (let t0 = 0; t0 < nClaims; t0++) {
    const i = claimSlots ? claimSlots[t0]! : t0;
    const sii = s.diag[i]!;
    if (sii === 0) continue;
    const z =
      p.biasClaim +
      p.direct * sii +
      p.support * ws.support[i]! -
      p.contradict * ws.contradict[i]! -
      p.require * ws.require[i]!;
    h[i] = sii * sigmoid(z);
  }
  let groups = shape.groups;
  if (only) {
    const ids = new Set<number>();
    for (const a of only)
      if (a >= shape.firstAnswer && a < shape.firstQuestion) {
        const q = shape.answerQuestion[a - shape.firstAnswer]!;
        if (q >= 0) ids.add(shape.questionGroup[q - shape.firstQuestion]!);
      }
    groups = [...ids].sort((x, y) => x - y).map((gi) => shape.groups[gi]!);
  }
  for (const g of groups) {
    const m = g.answers.length;
    const gate = new Float64Array(m);
    const z = new Float64Array(m);
    let zmax = 0;
    for (let t = 0; t < m; t++) {
      const a = g.answers[t]!;
      gate[t] = 1 - Math.exp(-(s.supportIn[a]! + s.requireOut[a]!) / p.presenceScale);
      const kr = s.reliableIn[a]!;
      z[t] = p.biasAnswer + (p.answerSupport * kr) / (1 + kr) + p.support * ws.support[a]! - p.require * ws.require[a]!;
      if (gate[t]! > 0 && z[t]! > zmax) zmax = z[t]!;
    }
    let den = Math.exp(-zmax);
    const num = new Float64Array(m);
    for (let t = 0; t < m; t++) {
      num[t] = gate[t]! * Math.exp(z[t]! - zmax);
      den += num[t]!;
    }
    let mass = 0;
    for (let t = 0; t < m; t++) {
      const gt = num[t]! / den;
      h[g.answers[t]!] = gt;
      mass += gt;
    }
    let sden = 0;
    const sw = new Float64Array(m);
    for (let t = 0; t < m; t++) {
      sw[t] = gate[t]! * Math.exp(h[g.answers[t]!]! / p.tauAnswer);
      sden += sw[t]!;
    }
    if (sden > 0) {
      for (let t = 0; t < m; t++) {
        const a = g.answers[t]!;
        h[a] = (1 - p.sharpen) * h[a]! + (p.sharpen * mass * sw[t]!) / sden;
      }
    }
  }
  const questionSlots = only ? only.filter((q) => q >= shape.firstQuestion) : null;
  const nQuestions = questionSlots ? questionSlots.length : n - shape.firstQuestion;
  for (let t1 = 0; t1 < nQuestions; t1++) {
    const q = questionSlots ? questionSlots[t1]! : shape.firstQuestion + t1;
    const kq = s.requireIn[q]!;
    if (kq === 0) continue;
    let answered = 0;
    const gi = shape.questionGroup[q - shape.firstQuestion]!;
    if (gi >= 0) for (const a of shape.groups[gi]!.answers) answered += c[a]!;
    h[q] = (1 - Math.exp(-kq / p.presenceScale)) * sigmoid(p.biasQuestion - p.resolve * answered);
  }
  if (only) for (const i of only) out[i] = (1 - p.lambda) * c[i]! + p.lambda * h[i]!;
  else for (let i = 0; i < n; i++) out[i] = (1 - p.lambda) * c[i]! + p.lambda * h[i]!;
}

/**
 * Smooth merge of near-duplicate claims: reads the attributes of θ, writes the merged ones
 * into `out` (only the first mergeDims attributes of claim slots change). Compactly supported
 * kernel (1 − r²/h²)_+³ (C²), gated by S_ii S_jj, so distinct claims (distance >= h) and empty
 * slots never interact. O(C² · mergeDims).
 */
export function mergeClaims(
  shape: OperatorShape,
  p: GraphOperatorParams,
  theta: Float64Array,
  diag: Float64Array,
  out: Float64Array,
): void {
  const k1 = shape.k + 1;
  const md = shape.mergeDims;
  const pull = new Float64Array(md);
  const merged = new Float64Array(md);
  for (let i = 0; i < shape.claims; i++) {
    if (mergeClaim(shape, p, theta, diag, i, pull, merged)) out.set(merged, i * k1);
  }
}

/**
 * The merge of one claim slot i: writes its first mergeDims attributes after the merge into
 * `merged` and returns true, or returns false (writing nothing) when nothing pulls on it (an
 * empty slot, mergeRate 0, or no other claim within the radius). `pull` is scratch of length
 * mergeDims. The one implementation of the merge arithmetic: {@link mergeClaims} and the
 * structure-aware order-gap (./orderGapFast.ts) both call it, so they agree bit for bit.
 */
export function mergeClaim(
  shape: OperatorShape,
  p: GraphOperatorParams,
  theta: Float64Array,
  diag: Float64Array,
  i: number,
  pull: Float64Array,
  merged: Float64Array,
): boolean {
  const k1 = shape.k + 1;
  const md = shape.mergeDims;
  const mi = diag[i]!;
  if (mi === 0 || p.mergeRate === 0) return false;
  const h2 = p.mergeRadius * p.mergeRadius;
  const oi = i * k1;
  pull.fill(0);
  let total = 0;
  for (let j = 0; j < shape.claims; j++) {
    const mj = diag[j]!;
    if (j === i || mj === 0) continue;
    const oj = j * k1;
    let r2 = 0;
    for (let t = 0; t < md; t++) {
      const dlt = theta[oj + t]! - theta[oi + t]!;
      r2 += dlt * dlt;
    }
    if (r2 >= h2) continue;
    const u = 1 - r2 / h2;
    const sij = mi * mj * u * u * u;
    total += sij;
    for (let t = 0; t < md; t++) pull[t] = pull[t]! + sij * (theta[oj + t]! - theta[oi + t]!);
  }
  if (total === 0) return false;
  const f = p.mergeRate / (1 + total);
  for (let t = 0; t < md; t++) merged[t] = theta[oi + t]! + f * pull[t]!;
  return true;
}

/** Reads the Nmax confidences of θ. */
export function readConfidences(shape: OperatorShape, theta: Float64Array): Float64Array {
  const c = new Float64Array(shape.nmax);
  for (let s = 0; s < shape.nmax; s++) c[s] = theta[s * (shape.k + 1) + shape.k]!;
  return c;
}

/**
 * Q's node block only: writes the (k+1)·Nmax node coordinates of Q(θ) into `nodeOut` (the
 * edge block of Q(θ) equals θ's). Two streaming passes over the edge block plus the merge.
 */
export function consolidateNodeBlock(
  shape: OperatorShape,
  p: GraphOperatorParams,
  theta: Float64Array,
  nodeOut: Float64Array,
): void {
  const k1 = shape.k + 1;
  const c = readConfidences(shape, theta);
  const sums = structureSums(shape, theta);
  const ws = weightedSums(shape, p, theta, c, sums);
  const cNew = new Float64Array(shape.nmax);
  confidenceUpdate(shape, p, c, sums, ws, cNew);
  for (let i = 0; i < shape.edgeOffset; i++) nodeOut[i] = theta[i]!;
  mergeClaims(shape, p, theta, sums.diag, nodeOut);
  for (let s = 0; s < shape.nmax; s++) nodeOut[s * k1 + shape.k] = cNew[s]!;
}

/**
 * Q(θ) (reference form): node block from {@link consolidateNodeBlock}, edge block copied.
 * `out` must not alias θ. Cost O(d + C² · mergeDims).
 */
export function referenceConsolidate(
  shape: OperatorShape,
  p: GraphOperatorParams,
  theta: Float64Array,
  out: Float64Array = new Float64Array(shape.dim),
): Float64Array {
  out.set(theta);
  consolidateNodeBlock(shape, p, theta, out);
  return out;
}
