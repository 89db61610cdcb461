/**
 * The arguments of the two product kernels of LinalgBackend (./backend.ts), one object per call: the
 * Gramian (BLAS dsyrk, G ← weight·AᵀA) and the general product (BLAS dgemm). Both backends and the
 * worker pool read the same object, so each argument is declared once. Row-major everywhere.
 */

/** How an operand enters a product: as stored ('N') or transposed ('T'). */
export type Transpose = 'N' | 'T';

/** Commit predicate of the Gramian kernel: (max|a_ij| as read, non-finite entries of G) -> write G? */
export type SyrkAccept = (amax: number, nonFinite: number) => boolean;

/** Thread option of the Gramian and GEMM (`options` of gram, gramAccumulate and gemm). */
export interface ThreadOption {
  /**
   * Threads for the Gramian: 1 = calling thread only; default = every thread of the running pool
   * when the problem has at least PARALLEL_MIN_FLOPS flops (./threads.ts). An explicit value > 1
   * needs a running pool and is capped at its size.
   */
  threads?: number;
}

/** One Gramian: G (cols×cols, full) ← weight·AᵀA (`overwrite`) or G + weight·AᵀA. */
export interface SyrkCall {
  /** rows×cols row-major; may hold NaN/±Infinity (the kernel reports them through `accept`). */
  readonly A: Float64Array;
  readonly rows: number;
  readonly cols: number;
  /** Exact power of two the products are formed on (the sum is multiplied by weight/scale² once). */
  readonly scale: number;
  readonly weight: number;
  /** cols×cols, written only if `accept` returns true. */
  readonly G: Float64Array;
  /** G ← weight·AᵀA instead of G + weight·AᵀA (G is then not read). */
  readonly overwrite: boolean;
  readonly accept: SyrkAccept;
  /** A's entries below the diagonal are zero (see LinalgBackend.syrk). */
  readonly upperTriangular?: boolean;
  /**
   * The friendly API's thread option as the caller gave it (checked by the wasm backend, which
   * runs the call on the worker pool when it allows: ./threads.ts); absent, the calling thread
   * only — every call from inside linalg, whose results are the one-thread bits. The reference
   * backend runs on the calling thread whatever it says.
   */
  readonly pool?: ThreadOption;
}

/** One product: C (M×N) = alpha·op(A)·op(B) + beta·C, op(A) M×K, op(B) K×N. */
export interface GemmCall {
  readonly transA: Transpose;
  readonly transB: Transpose;
  readonly M: number;
  readonly N: number;
  readonly K: number;
  readonly alpha: number;
  /** Stored M×K ('N') or K×M ('T'). */
  readonly A: Float64Array;
  /** Stored K×N ('N') or N×K ('T'). */
  readonly B: Float64Array;
  /** 0: C is not read (NaN in C does not propagate), as in BLAS. */
  readonly beta: number;
  /** M×N, written only if `accept` returns true. */
  readonly C: Float64Array;
  /** Called with the number of non-finite entries of the result; default: always write. */
  readonly accept?: (nonFinite: number) => boolean;
  /** As {@link SyrkCall.pool}. */
  readonly pool?: ThreadOption;
}
