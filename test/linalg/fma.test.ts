/**
 * The FMA build of the kernels (build/ordergap-fma.wasm, assembly/linalg/madd.ts) and how `init`
 * chooses a build. The rest of the suites run the plain build (vitest.config.ts sets
 * ORDERGAP_KERNELS=plain), whose bits the bit-identity tests pin down; this file loads the FMA
 * build and holds it to the same outside oracles as the plain one.
 *
 * Tolerances under fused rounding. A plain multiply-add step c ← fl(fl(a·b) + c) and a fused one
 * c ← fl(a·b + c) both satisfy c_new = (a·b(1 + δ₁) + c)(1 + δ₂) with |δ₁|, |δ₂| <= u = eps/2
 * (the fused one with δ₁ = 0: it drops the product's rounding, which is at most u·|a·b|). So a
 * recursive sum of n products computed either way is Σ a_k b_k (1 + θ_k) with |θ_k| <= γ_n =
 * n·u/(1 − n·u) (Higham, Lemma 3.1 and Sec. 3.1), and |ŝ − s| <= γ_n·Σ|a_k||b_k|: every
 * bound of the plain build's tests holds for the FMA build unchanged — fusing can only remove a
 * rounding, never add one. The comparisons below are against the naive sum in TypeScript, itself
 * within γ_n·Σ|a||b| of s, so they allow 2γ_n <= 1.01·n·eps (n·u < 0.01) plus the rounding of a
 * final scaling, rounded up to the plain tests' constants (gemm: (2k + 4)·eps; Gramian
 * 2·rows·eps). Backward-stable factorizations (eigh: Householder, QL or divide and conquer; the
 * bidiagonal path of svdvals) are stable because each reflector application and each update is a
 * sum of products bounded as above; with fused steps the same constants stand, so the same
 * residual, orthogonality and Weyl bounds (test/linalg/syev.test.ts, bidiag.test.ts) are used.
 *
 * Runs where the runtime has relaxed SIMD (Node 22 and later; Node 20 only with
 * --experimental-wasm-relaxed-simd); elsewhere the FMA block is skipped, since the runtime
 * cannot compile that build at all — the choice tests still run.
 */
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { eigh, gemm, gram, svdvals } from '../../src/linalg/api.js';
import { ArgumentError } from '../../src/util/errors.js';
import { chooseKernelBuild, init, relaxedSimdSupported, wasm } from '../../src/wasm/module.js';
import { EPS, frob, matmul, randn, randomSymmetric, transpose, withSpectrum } from './cases.js';
import { expectEigenpairs } from './eigenpairs.js';
import { svdvalsOracle } from './oracles.js';
import { BIN } from '../util/builtCli.js';

/** x = 1 + 2⁻²⁷: x·x = 1 + 2⁻²⁶ + 2⁻⁵⁴ rounds to 1 + 2⁻²⁶, so x·x − (1 + 2⁻²⁶) is 2⁻⁵⁴ fused, 0 unfused. */
const X = 1 + 2 ** -27;
const X2 = 1 + 2 ** -26;

describe('choosing the build', () => {
  const saved = process.env.ORDERGAP_KERNELS;
  afterEach(() => {
    if (saved === undefined) delete process.env.ORDERGAP_KERNELS;
    else process.env.ORDERGAP_KERNELS = saved;
  });

  it("'auto' is 'fma' exactly where relaxed SIMD validates; a forced build is that build", () => {
    expect(chooseKernelBuild('auto', true)).toBe('fma');
    expect(chooseKernelBuild('auto', false)).toBe('plain');
    expect(chooseKernelBuild('plain', true)).toBe('plain');
    expect(chooseKernelBuild('fma', true)).toBe('fma');
    expect(chooseKernelBuild('auto')).toBe(relaxedSimdSupported() ? 'fma' : 'plain');
  });

  it('the probe agrees with the runtime: Node 22+ validates relaxed SIMD by default', () => {
    const major = Number(process.versions.node.split('.')[0]);
    const flagged = process.execArgv.some((a) => a.includes('relaxed-simd'));
    if (major >= 22) expect(relaxedSimdSupported()).toBe(true);
    else if (!flagged) expect(relaxedSimdSupported()).toBe(false);
  });

  it('ORDERGAP_KERNELS applies when the option is absent; the option wins over it', () => {
    process.env.ORDERGAP_KERNELS = 'plain';
    expect(chooseKernelBuild(undefined, true)).toBe('plain');
    expect(chooseKernelBuild('fma', true)).toBe('fma');
    process.env.ORDERGAP_KERNELS = '';
    expect(chooseKernelBuild(undefined, true)).toBe('fma');
  });

  it('a bad value is a one-line ArgumentError naming the option or the variable', () => {
    expect(() => chooseKernelBuild('fast', true)).toThrow(ArgumentError);
    expect(() => chooseKernelBuild('fast', true)).toThrow(/^options\.kernels = "?fast"?.*'auto', 'fma' or 'plain'$/);
    process.env.ORDERGAP_KERNELS = 'FMA';
    expect(() => chooseKernelBuild(undefined, true)).toThrow(/^ORDERGAP_KERNELS = "?FMA"?.*'auto', 'fma' or 'plain'$/);
  });

  it("'fma' forced on a runtime without relaxed SIMD says so and how to get it", () => {
    expect(() => chooseKernelBuild('fma', false)).toThrow(ArgumentError);
    expect(() => chooseKernelBuild('fma', false)).toThrow(
      /options\.kernels = "?fma"?.*needs WebAssembly relaxed SIMD.*Node 22 or later, node --experimental-wasm-relaxed-simd, or 'plain'/,
    );
  });
});

describe('the CLI (built) reads ORDERGAP_KERNELS', () => {
  const certify = (kernels: string) =>
    spawnSync(process.execPath, [BIN, 'certify', '--system', 'closed-form', '--json', '--no-progress'], {
      encoding: 'utf8',
      env: { ...process.env, ORDERGAP_KERNELS: kernels },
    });

  it('a bad value exits 2 with the one-line error and nothing on stdout', () => {
    const r = certify('fastest');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`ordergap: error: ORDERGAP_KERNELS = "fastest": must be 'auto', 'fma' or 'plain'\n`);
  });

  it('the build it names is the one the report records', () => {
    const r = certify('plain');
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).environment).toMatchObject({ node: process.version, kernels: 'plain' });
  });
});

describe.skipIf(!relaxedSimdSupported())('the FMA build (skipped: this runtime has no relaxed SIMD)', () => {
  it('init loads it, says so, and refuses to switch builds afterwards', async () => {
    const rt = await init({ kernels: 'fma' });
    expect(rt.kernels).toBe('fma');
    expect(wasm().kernels).toBe('fma');
    await expect(init({ kernels: 'plain' })).rejects.toThrow(
      /the fma kernels are already loaded; cannot switch to plain/,
    );
    expect(await init({ kernels: 'auto' })).toBe(rt);
  });

  it('the products are fused: x·x − (1 + 2⁻²⁶) is 2⁻⁵⁴ in gemm and in the Gramian (0 with two roundings)', async () => {
    await init({ kernels: 'fma' });
    // [1, x]·[−(1 + 2⁻²⁶) 0; x 0]: the second step of C00 is fma(x, x, −(1 + 2⁻²⁶)) (two columns,
    // so the blocked kernel runs; one column would be the matrix-vector kernel, checked next)
    expect(gemm([1, X], 1, 2, [-X2, 0, X, 0], 2, 2)[0]).toBe(2 ** -54);
    expect(gemm([1, X], 1, 2, [-X2, 0, X, 0], 2, 2, { backend: 'reference' })[0]).toBe(0);
    // A·x with eight columns: columns 0 and 4 share a lane, so lane 0 is fma(x, x, 1·(−(1 + 2⁻²⁶)));
    // with two columns both would be tail steps, summed one by one and rounded twice
    const row = [1, 0, 0, 0, X, 0, 0, 0];
    const x = [-X2, 0, 0, 0, X, 0, 0, 0];
    expect(gemm(row, 1, 8, x, 8, 1)[0]).toBe(2 ** -54);
    expect(gemm(row, 1, 8, x, 8, 1, { backend: 'reference' })[0]).toBe(0);
    expect(gemm([1, X], 1, 2, [-X2, X], 2, 1)[0]).toBe(0);
    // columns [1, x] and [−(1 + 2⁻²⁶), x]: G01 = 1·(−(1 + 2⁻²⁶)) + x·x
    const A = [1, -X2, X, X];
    expect(gram(A, 2, 2)[1]).toBe(2 ** -54);
    expect(gram(A, 2, 2, { backend: 'reference' })[1]).toBe(0);
  });

  it('gemm across the blocks (K > 256, M > 128), all transposes: within (2k + 4)·eps·(|A||B|) of the naive product', async () => {
    await init({ kernels: 'fma' });
    const [m, k, n] = [131, 300, 37];
    const A = randn(11, m * k);
    const B = randn(12, k * n);
    const P = matmul(A, B, m, k, n);
    const S = matmul(A.map(Math.abs), B.map(Math.abs), m, k, n);
    for (const [tA, tB] of [
      [false, false],
      [true, false],
      [false, true],
      [true, true],
    ] as const) {
      const a = tA ? transpose(A, m, k) : A;
      const b = tB ? transpose(B, k, n) : B;
      const C = gemm(a, tA ? k : m, tA ? m : k, b, tB ? n : k, tB ? k : n, { transA: tA, transB: tB });
      for (let i = 0; i < m * n; i++)
        expect(Math.abs(C[i]! - P[i]!), `${tA}${tB} entry ${i}`).toBeLessThanOrEqual((2 * k + 4) * EPS * S[i]!);
    }
  });

  it('Gramian 513×70 (tiles, padding, chunks): within 2·rows·eps·(|A|ᵀ|A|) of the naive sum, exactly symmetric', async () => {
    await init({ kernels: 'fma' });
    const [rows, cols] = [513, 70];
    const A = randn(21, rows * cols);
    const At = transpose(A, rows, cols);
    const want = matmul(At, A, cols, rows, cols);
    const abs = matmul(At.map(Math.abs), A.map(Math.abs), cols, rows, cols);
    const G = gram(A, rows, cols);
    for (let i = 0; i < cols; i++)
      for (let j = 0; j < cols; j++) {
        expect(G[i * cols + j]).toBe(G[j * cols + i]);
        expect(Math.abs(G[i * cols + j]! - want[i * cols + j]!)).toBeLessThanOrEqual(
          2 * rows * EPS * abs[i * cols + j]!,
        );
      }
  });

  it('eigh, blocked reduction and divide and conquer (n = 200) and a known spectrum: residual, orthogonality, values', async () => {
    await init({ kernels: 'fma' });
    const n = 200;
    for (const S of [
      randomSymmetric(31, n),
      withSpectrum(
        32,
        Array.from({ length: n }, (_, i) => i / n - 0.5),
      ),
    ]) {
      const { values, vectors: V } = eigh(S, n);
      expectEigenpairs(S, n, values, V);
      const norm = frob(S);
      const ref = eigh(S, n, { backend: 'reference' }).values;
      for (let j = 0; j < n; j++) expect(Math.abs(values[j]! - ref[j]!)).toBeLessThanOrEqual(16 * n * EPS * norm);
    }
  });

  it('svdvals of a 320×160 Gaussian stack: within 2·4·m·eps·σ_max of the ml-matrix oracle', async () => {
    await init({ kernels: 'fma' });
    const [rows, cols] = [320, 160];
    const A = randn(41, rows * cols);
    const got = svdvals(A, rows, cols);
    const want = svdvalsOracle(A, rows, cols);
    let worst = 0;
    for (let i = 0; i < cols; i++) worst = Math.max(worst, Math.abs(got[i]! - want[i]!));
    expect(worst).toBeLessThanOrEqual(2 * 4 * rows * EPS * want[0]!);
  });
});
