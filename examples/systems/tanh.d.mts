// Declarations of examples/systems/tanh.mjs (plain JavaScript), so TypeScript callers import it
// with types.

/** Options of {@link tanhSystem} and {@link tanhWeights}. */
export interface TanhOptions {
  /** Hidden coordinates x (default 64). */
  n?: number;
  /** Items e0..e(p−1), one y coordinate each (default 4). */
  p?: number;
  /** The spectral norm ‖W‖₂ (default 0.8). */
  norm?: number;
  /** With the bias b (default true). */
  bias?: boolean;
  /** Seed of the weights (default 1). */
  seed?: number;
}

/** The weights of the tanh layer. */
export interface TanhWeights {
  /** Row-major n × n, scaled to ‖W‖₂ = norm (to the power-iteration estimate σ̂). */
  W: Float64Array;
  /** The bias (zeros without bias). */
  b: Float64Array;
  /** σ̂, the estimate of ‖W₀‖₂ the scaling used. */
  sigma: number;
}

/** The tfjs namespace and its tensors, untyped here (the module imports nothing). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- typed by the caller's tfjs
type TfAny = any;

/** The operator-module spec the factory returns (the contract of docs/ARCHITECTURE.md). */
export interface TanhSpec {
  name: string;
  dim: number;
  theta0: number[];
  consolidate(theta: Float64Array): Float64Array;
  expand(evidenceId: string, theta: Float64Array): Float64Array;
  evidence: { id: string; p: number }[];
  subspaces: { x: number[]; y: number[]; all: number[] };
  describeCoordinate(index: number): string;
  linearization: {
    footprint(evidenceId: string): number[];
    consolidateTf(tf: TfAny, X: TfAny): TfAny;
    expandTf(tf: TfAny, evidenceId: string, X: TfAny): TfAny;
  };
  lipschitz: { x: { bound: number; derivation: string } };
}

/** The weights W, b for the options (and σ̂). */
export function tanhWeights(options?: TanhOptions): TanhWeights;

/** The system's spec for the options. */
export function tanhSystem(options?: TanhOptions): TanhSpec;

/** tanhSystem() with the defaults. */
declare const spec: TanhSpec;
export default spec;
