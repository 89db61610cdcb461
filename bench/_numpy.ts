/**
 * A paired native baseline for the benchmarks: numpy (LAPACK through OpenBLAS, ONE thread) in a
 * long-lived python3 child that times one call per request, so that ours and numpy's runs can
 * alternate (ours, numpy, ours, numpy, …) on the same input and each ratio is taken between two
 * runs seconds apart. On this shared host the same binary varies by 20–30 % over minutes; a ratio
 * of two medians taken minutes apart carries both drifts, a per-round ratio carries almost none.
 * While a request is not running the child is blocked on its stdin and uses no CPU.
 *
 * numpy is not a dependency (CI does not need it): {@link startNumpy} resolves to null when
 * python3 or numpy is missing.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** What numpy computes for each request name (the LAPACK driver numpy calls is in the comment). */
const SERVER = `
import json, sys, time, numpy as np
GEMV_REPS = 100
def gemv(A):
    x = np.linspace(-1.0, 1.0, A.shape[1])
    for _ in range(GEMV_REPS):
        A @ x
ops = {
    "gemv": gemv,                                            # dgemv, GEMV_REPS products W @ x
    "eigh": lambda A: np.linalg.eigh(A),                     # dsyevd
    "svd": lambda A: np.linalg.svd(A),                       # dgesdd, with vectors
    "svdvals": lambda A: np.linalg.svd(A, compute_uv=False), # dgesdd, values only
}
held = {}
print(json.dumps({"numpy": np.__version__}), flush=True)
for line in sys.stdin:
    op, path, m = line.split()
    if path not in held:
        held.clear()
        held[path] = np.fromfile(path, dtype="<f8").reshape(int(m), int(m))
    A = held[path]
    c0, w0 = time.process_time(), time.perf_counter()
    ops[op](A)
    w, c = time.perf_counter() - w0, time.process_time() - c0
    print(json.dumps({"wallMs": w * 1e3, "cpuMs": c * 1e3}), flush=True)
`;

/** The requests the child serves; `gemv` is {@link NUMPY_GEMV_REPS} products `W @ x` in one timing. */
export type NumpyOp = 'eigh' | 'svd' | 'svdvals' | 'gemv';
/** Products per `gemv` request (GEMV_REPS in the child). */
export const NUMPY_GEMV_REPS = 100;

/** One timed call. */
export interface CallTiming {
  wallMs: number;
  cpuMs: number;
}

/** The numpy child. */
export interface NumpyServer {
  version: string;
  /** Times numpy's `op` once on the m×m row-major matrix A (written to a file the first time). */
  time(op: NumpyOp, A: Float64Array, m: number): Promise<CallTiming>;
  close(): void;
}

/** Starts the numpy child (one BLAS thread), or resolves to null when python3/numpy is missing. */
export async function startNumpy(): Promise<NumpyServer | null> {
  const env = { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn('python3', ['-u', '-c', SERVER], { env });
  } catch {
    return null;
  }
  const waiting: ((line: string | null) => void)[] = [];
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => waiting.shift()?.(line));
  const ended = () => {
    for (const w of waiting.splice(0)) w(null);
  };
  child.on('error', ended);
  child.on('exit', ended);
  const next = () => new Promise<string | null>((resolve) => waiting.push(resolve));
  const hello = await next();
  if (hello === null) return null;
  const dir = mkdtempSync(join(tmpdir(), 'ordergap-bench-'));
  const files = new Map<Float64Array, string>();
  return {
    version: (JSON.parse(hello) as { numpy: string }).numpy,
    async time(op, A, m) {
      let path = files.get(A);
      if (path === undefined) {
        path = join(dir, `m${m}-${files.size}.f64`);
        writeFileSync(path, new Uint8Array(A.buffer, A.byteOffset, A.byteLength));
        files.set(A, path);
      }
      const reply = next();
      child.stdin.write(`${op} ${path} ${m}\n`);
      const line = await reply;
      if (line === null) throw new Error(`numpy child ended during ${op} at m = ${m}`);
      return JSON.parse(line) as CallTiming;
    },
    close() {
      child.stdin.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Ours against numpy over alternating rounds on the same input. */
export interface PairedTiming {
  rounds: number;
  oursMedianMs: number;
  numpyMedianMs: number;
  oursCpuMedianMs: number;
  numpyCpuMedianMs: number;
  /** Median over rounds of (ours ÷ numpy) in wall time, each ratio from one round. */
  ratioMedian: number;
  /** The same in CPU time. */
  ratioCpuMedian: number;
  /** Smallest and largest per-round wall-time ratio. */
  ratioRange: [number, number];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * `rounds` rounds of (ours once, numpy once) after one untimed warm call of each; which runs first
 * alternates between rounds, so neither always follows the other's cache footprint.
 */
export async function pairedTiming(
  ours: () => unknown,
  numpy: NumpyServer,
  op: NumpyOp,
  A: Float64Array,
  m: number,
  rounds: number,
): Promise<PairedTiming> {
  ours();
  await numpy.time(op, A, m);
  const ow: number[] = [];
  const oc: number[] = [];
  const nw: number[] = [];
  const nc: number[] = [];
  const runOurs = () => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    ours();
    ow.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    oc.push((c.user + c.system) / 1000);
  };
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) runOurs();
    const n = await numpy.time(op, A, m);
    nw.push(n.wallMs);
    nc.push(n.cpuMs);
    if (r % 2 === 1) runOurs();
  }
  const ratios = ow.map((t, i) => t / nw[i]!);
  return {
    rounds,
    oursMedianMs: median(ow),
    numpyMedianMs: median(nw),
    oursCpuMedianMs: median(oc),
    numpyCpuMedianMs: median(nc),
    ratioMedian: median(ratios),
    ratioCpuMedian: median(oc.map((t, i) => t / nc[i]!)),
    ratioRange: [Math.min(...ratios), Math.max(...ratios)],
  };
}
