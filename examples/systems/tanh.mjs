// An example operator module for `ordergap certify --system examples/systems/tanh.mjs` (the
// contract of docs/ARCHITECTURE.md, with linearization.footprint and the tfjs forms), a
// nonlinear contraction on its first block.
//
// θ = (x ∈ R^n, y ∈ R^p):
//   Q(θ)   = (tanh(W x + b), y)                       a tanh layer on x; y kept
//   P_e(θ) = θ with y_e ← y_e + a_e (t_e − y_e)       a blend of e's own coordinate toward t_e
// W (n × n) and b are drawn from a seeded generator (an LCG) and W is scaled to the spectral
// norm `norm`, so Q contracts x with modulus ‖W‖₂ (|tanh′| <= 1; declared as the Lipschitz bound
// of the block x) but is the identity on y: not a contraction on the whole space. The start has
// y at the targets, so every P_e is redundant at the fixed point (P_e θ* = θ*). Q never reads y
// and P_e writes only y, so DQ and DP_e commute and every Σ_e vanishes: the linearised order gap
// is blind at every state, which the certification reports.
//
// ‖W‖₂: W = (norm / σ̂)·W₀, where σ̂ is the power-iteration estimate of ‖W₀‖₂ = sqrt(λ_max(W₀ᵀW₀))
// (below). The achieved ‖W‖₂ is norm·‖W₀‖₂/σ̂, i.e. norm up to the error of that estimate: σ̂,
// a Rayleigh quotient, stops within 1e-15 relative of ‖W₀‖₂ (its iteration error is below 1e-17;
// the f64 rounding of the products adds about √n·2⁻⁵³).

/** The spectral norm of the default instance. */
const NORM = 0.8;

/** A seeded linear congruential generator (Numerical Recipes' constants): uniform numbers in [0, 1). */
function lcg(seed) {
  let a = seed >>> 0;
  return () => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return a / 4294967296;
  };
}

/** W v for row-major W (n × n). */
function matVec(W, v, n) {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += W[i * n + j] * v[j];
    out[i] = s;
  }
  return out;
}

/** Wᵀ v for row-major W (n × n). */
function matTVec(W, v, n) {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) out[j] += W[i * n + j] * v[i];
  return out;
}

/**
 * ‖W‖₂ by power iteration on WᵀW: v ← WᵀW v / ‖WᵀW v‖ from v = (1, …, 1)/√n, σ̂² = ‖W v‖² (a
 * Rayleigh quotient of WᵀW; it increases towards λ_max, the error shrinking by a factor q per
 * step, q → (λ₂/λ₁)²). While the increments exceed 1e-13·σ̂² (well above the f64 rounding of
 * σ̂², about √n·2⁻⁵³ relative) q is read off consecutive increments d; then it runs the m more
 * steps that bring the geometric tail d·q^(m+1)/(1 − q) below 1e-17·σ̂², so σ̂ is within 1e-15
 * relative of ‖W‖₂ but for that rounding. At most 100000 steps (q within 1e-4 of 1).
 */
function spectralNorm(W, n) {
  let v = new Float64Array(n).fill(1 / Math.sqrt(n));
  let lambda = 0;
  let d = Infinity; // the last increment above 1e-13·σ̂²
  let q = 0; // the ratio of the last two such increments
  let remaining = -1; // steps left once the increments fall below 1e-13·σ̂²
  for (let k = 0; k < 100000; k++) {
    const Wv = matVec(W, v, n);
    let l = 0;
    for (const x of Wv) l += x * x;
    const dk = l - lambda;
    lambda = l;
    if (remaining < 0) {
      if (dk > 1e-13 * l) {
        q = dk / d;
        d = dk;
      } else {
        remaining = q > 0 && q < 1 ? Math.max(0, Math.ceil(Math.log((1e-17 * l * (1 - q)) / d) / Math.log(q))) : 0;
      }
    }
    if (remaining === 0) break;
    if (remaining > 0) remaining--;
    const w = matTVec(W, Wv, n);
    let s = 0;
    for (const x of w) s += x * x;
    s = Math.sqrt(s);
    v = w.map((x) => x / s);
  }
  return Math.sqrt(lambda);
}

function checkOptions({ n, p, norm, bias, seed }) {
  const whole = (name, v, min) => {
    if (!Number.isInteger(v) || v < min) throw new RangeError(`${name} = ${v}: must be an integer >= ${min}`);
  };
  whole('n', n, 1);
  whole('p', p, 1);
  whole('seed', seed, 0);
  if (!(Number.isFinite(norm) && norm > 0)) throw new RangeError(`norm = ${norm}: must be a positive number`);
  if (typeof bias !== 'boolean') throw new RangeError(`bias = ${bias}: must be true or false`);
}

/**
 * The weights of the tanh layer: W (row-major n × n, entries of W₀ uniform in [−1, 1) scaled to
 * ‖W‖₂ = norm as above), b (uniform in [−0.5, 0.5), or zeros without bias), and σ̂, the estimate
 * of ‖W₀‖₂ the scaling used. Same options as tanhSystem.
 */
export function tanhWeights({ n = 64, p = 4, norm = NORM, bias = true, seed = 1 } = {}) {
  checkOptions({ n, p, norm, bias, seed });
  const rand = lcg(seed);
  const W0 = Float64Array.from({ length: n * n }, () => 2 * rand() - 1);
  const b = Float64Array.from({ length: n }, () => (bias ? rand() - 0.5 : 0));
  const sigma = spectralNorm(W0, n);
  const W = W0.map((w) => (w * norm) / sigma);
  return { W, b, sigma };
}

/**
 * The system for n hidden coordinates x, p items e0..e(p−1) (uniform P), spectral norm `norm`,
 * with or without the bias b, weights from `seed`: the spec of an operator module.
 */
export function tanhSystem({ n = 64, p = 4, norm = NORM, bias = true, seed = 1 } = {}) {
  const { W, b } = tanhWeights({ n, p, norm, bias, seed });
  const rand = lcg(seed + 0x9e3779b9);
  const rate = Array.from({ length: p }, () => 0.2 + 0.6 * rand());
  const target = Array.from({ length: p }, () => rand());
  const ids = Array.from({ length: p }, (_, e) => `e${e}`);
  const dim = n + p;

  function consolidate(theta) {
    const out = Float64Array.from(theta);
    for (let i = 0; i < n; i++) {
      let s = b[i];
      for (let j = 0; j < n; j++) s += W[i * n + j] * theta[j];
      out[i] = Math.tanh(s);
    }
    return out;
  }

  function expand(id, theta) {
    const e = ids.indexOf(id);
    const out = Float64Array.from(theta);
    out[n + e] = theta[n + e] + rate[e] * (target[e] - theta[n + e]);
    return out;
  }

  // tfjs forms (rows of X are states) for `--jacobian autodiff`
  function consolidateTf(tf, X) {
    return tf.tidy(() => {
      const x = tf.slice(X, [0, 0], [-1, n]);
      const y = tf.slice(X, [0, n], [-1, p]);
      const z = tf.add(tf.matMul(x, tf.tensor2d(Array.from(W), [n, n]), false, true), tf.tensor1d(Array.from(b)));
      return tf.concat([tf.tanh(z), y], 1);
    });
  }

  function expandTf(tf, id, X) {
    const e = ids.indexOf(id);
    return tf.tidy(() => {
      const mask = tf.tensor1d(Array.from({ length: dim }, (_, i) => (i === n + e ? rate[e] : 0)));
      const t = tf.tensor1d(Array.from({ length: dim }, (_, i) => (i === n + e ? target[e] : 0)));
      return tf.add(X, tf.mul(tf.sub(t, X), mask));
    });
  }

  const range = (start, count) => Array.from({ length: count }, (_, i) => start + i);
  return {
    name: `tanh-example(n=${n}, p=${p}, norm=${norm})`,
    dim,
    theta0: [...new Array(n).fill(0), ...target], // y already at the targets: redundancy holds at θ*
    consolidate,
    expand,
    evidence: ids.map((id) => ({ id, p: 1 / p })),
    subspaces: { x: range(0, n), y: range(n, p), all: range(0, dim) },
    describeCoordinate: (i) => (i < n ? `x${i}` : `y${i - n}`),
    linearization: { footprint: (id) => [n + ids.indexOf(id)], consolidateTf, expandTf },
    lipschitz: {
      x: {
        bound: norm * (1 + 1e-14),
        derivation: `|tanh′| <= 1 and ‖W‖₂ = ${norm} (a power-iteration estimate, 1e-15 relative; 1e-14 added)`,
      },
    },
  };
}

export default tanhSystem();
