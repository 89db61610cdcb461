// An example operator module for `ordergap certify --system examples/systems/linear.mjs`
// (the contract of docs/ARCHITECTURE.md, plus the optional linearisation fields of
// docs/ARCHITECTURE.md, operator contract: linearization.footprint and the tfjs forms, lipschitz).
//
// θ = (b0, b1, b2, s0, s1, s2): three beliefs b and three structural weights s.
//   Q(θ)   = (0.5·b + 0.3·M s, s)            beliefs derived from structure; structure kept
//   P_e(θ) = θ with s_e ← s_e + a_e (t_e − s_e)  a blend on e's own structural weight
// Q contracts the belief block with modulus 0.5 (‖D_b Q_b‖ = 0.5) but is the identity on the
// structure, so it is not a contraction on the whole space — the certification says so.
// Expected: beliefs are in the kernel of every Σ_e (P_e writes only structure), each structural
// coordinate is seen by the one item that writes it, so `structure` is non-degenerate while
// every item has positive probability.
const M = [
  [1, 0.5, 0],
  [0, 1, 0.5],
  [0.5, 0, 1],
];
const a = [0.5, 0.3, 0.2];
const t = [0.9, 0.6, 0.3];
const ids = ['e0', 'e1', 'e2'];

function consolidate(theta) {
  const out = Float64Array.from(theta);
  for (let i = 0; i < 3; i++) {
    let s = 0;
    for (let j = 0; j < 3; j++) s += M[i][j] * theta[3 + j];
    out[i] = 0.5 * theta[i] + 0.3 * s;
  }
  return out;
}

function expand(id, theta) {
  const e = ids.indexOf(id);
  const out = Float64Array.from(theta);
  out[3 + e] = theta[3 + e] + a[e] * (t[e] - theta[3 + e]);
  return out;
}

// tfjs forms (rows of X are states) for `--jacobian autodiff`
function consolidateTf(tf, X) {
  const b = tf.slice(X, [0, 0], [-1, 3]);
  const s = tf.slice(X, [0, 3], [-1, 3]);
  const Mt = tf.tensor2d(M.flat(), [3, 3]).transpose();
  return tf.concat([tf.add(tf.mul(b, 0.5), tf.mul(tf.matMul(s, Mt), 0.3)), s], 1);
}

function expandTf(tf, id, X) {
  const e = ids.indexOf(id);
  const mask = tf.tensor1d([0, 0, 0, 0, 0, 0].map((_, i) => (i === 3 + e ? 1 : 0)));
  const target = tf.tensor1d([0, 0, 0, 0, 0, 0].map((_, i) => (i === 3 + e ? t[e] : 0)));
  return tf.add(X, tf.mul(tf.mul(tf.sub(target, X), mask), a[e]));
}

export default {
  name: 'linear-example',
  dim: 6,
  theta0: [0.5, 0.5, 0.5, ...t], // structure already at the targets: redundancy holds at θ*
  consolidate,
  expand,
  evidence: ids.map((id) => ({ id, p: 1 / 3 })),
  subspaces: { beliefs: [0, 1, 2], structure: [3, 4, 5] },
  questions: { 'q:first': [3], 'q:second': [4, 5] },
  describeCoordinate: (i) => (i < 3 ? `b${i}` : `s${i - 3}`),
  linearization: { footprint: (id) => [3 + ids.indexOf(id)], consolidateTf, expandTf },
  lipschitz: { beliefs: { bound: 0.5, derivation: 'Q scales the beliefs by 0.5' } },
};
