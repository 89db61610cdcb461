/**
 * Memory estimates checked before allocation. Every size that comes from input (graph
 * capacities and k, a system's dimension d, a matrix shape, a file's length) is turned into the
 * bytes the command will allocate for it — one estimating function per input, from the
 * representation the code allocates — and compared with what can hold it:
 *
 * - the machine: `os.totalmem()`, or the cgroup limit `process.constrainedMemory()` when it is
 *   smaller, or `ORDERGAP_MEMORY_LIMIT` (bytes) when set (for shared machines and tests);
 * - wasm32: one WebAssembly memory holds at most 4 GiB (65 536 pages of 64 KiB), so anything
 *   the wasm kernels copy into their arena must fit there;
 * - V8: a typed array has at most 2^32 elements, a string at most 2^29 − 24 characters.
 *
 * A refusal is an {@link ArgumentError} naming the argument, the size and the memory it would
 * take: one line, exit status 2 on the CLI, before anything is allocated.
 */
import { statSync, type Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { ArgumentError } from './errors.js';

/** Bytes one WebAssembly (wasm32) memory can hold: 65 536 pages of 64 KiB. */
export const WASM32_MEMORY_BYTES = 2 ** 32;

/** Elements a typed array can have in V8 (Node 20). */
export const MAX_TYPED_ARRAY_LENGTH = 2 ** 32;

/** Characters a string can have in V8 (Node 20, 64-bit): reading a bigger text file fails. */
export const MAX_STRING_LENGTH = 2 ** 29 - 24;

/**
 * Dense states of length d the graph run keeps alive at once: θ_t, P_e(θ_t), Q(θ_t),
 * Q(P_e(θ_t)), P_e(Q(θ_t)), the next state, the state at the stop, the best state and θ0 — 9,
 * rounded up to 12 for the copies the operators' validation and the reports make.
 */
export const GRAPH_RUN_HOST_STATES = 12;

/** Where a memory limit comes from. */
export interface MemoryLimit {
  readonly bytes: number;
  readonly source: string;
}

/** The memory the machine offers this process (see the module comment). */
export function machineMemoryLimit(env: NodeJS.ProcessEnv = process.env): MemoryLimit {
  const override = env['ORDERGAP_MEMORY_LIMIT'];
  if (override !== undefined && override !== '') {
    const bytes = Number(override);
    if (!(bytes > 0) || !Number.isFinite(bytes))
      throw new ArgumentError('ORDERGAP_MEMORY_LIMIT', override, 'must be a number of bytes > 0');
    return { bytes, source: 'ORDERGAP_MEMORY_LIMIT' };
  }
  const total = totalmem();
  const constrained = typeof process.constrainedMemory === 'function' ? process.constrainedMemory() : 0;
  if (constrained !== undefined && constrained > 0 && constrained < total)
    return { bytes: constrained, source: "this process's cgroup limit" };
  return { bytes: total, source: "this machine's memory" };
}

/** `1536` → `1.5 KiB`; binary units, three significant digits. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${bytes} B` : `${v.toPrecision(3)} ${units[u]}`;
}

/** What an input will make a command allocate. */
export interface MemoryEstimate {
  /** Bytes on the host (JS heap and typed arrays). */
  readonly hostBytes: number;
  /** Bytes the wasm kernels need in their arena at once (0 when they are not used). */
  readonly wasmBytes: number;
  /** Elements of the largest single typed array. */
  readonly largestArray: number;
}

/**
 * Refuses an estimate that cannot fit: the largest array beyond V8's typed-array length, the
 * wasm part beyond wasm32's 4 GiB, the host part beyond the machine.
 * @param argument the input the size comes from (`graph.capacities`).
 * @param size the size in words (`Nmax = 30026, k = 4: d = 2704830334`).
 * @throws {ArgumentError} naming `argument`, the size and the memory it would take.
 */
export function requireMemory(
  argument: string,
  size: string,
  estimate: MemoryEstimate,
  limit: MemoryLimit = machineMemoryLimit(),
): void {
  const take = (bytes: number) => `would take ${formatBytes(bytes)}`;
  if (estimate.largestArray > MAX_TYPED_ARRAY_LENGTH)
    throw new ArgumentError(
      argument,
      size,
      `too large: one array of ${estimate.largestArray} numbers (${take(8 * estimate.largestArray)}), more than the 2^32 a typed array can hold`,
    );
  if (estimate.wasmBytes > WASM32_MEMORY_BYTES)
    throw new ArgumentError(
      argument,
      size,
      `too large: the wasm kernels ${take(estimate.wasmBytes)}, more than the 4 GiB a wasm32 memory can hold`,
    );
  if (estimate.hostBytes + estimate.wasmBytes > limit.bytes)
    throw new ArgumentError(
      argument,
      size,
      `too large: it ${take(estimate.hostBytes + estimate.wasmBytes)}, more than ${limit.source} (${formatBytes(limit.bytes)})`,
    );
}

/** d = (k+1)·Nmax + 3·Nmax² of the graph embedding (Def. 2.2), in f64 arithmetic (exact below 2^53). */
function graphDimension(k: number, nmax: number): number {
  return (k + 1) * nmax + 3 * nmax * nmax;
}

/**
 * Memory a graph with attribute dimension `k` and capacities `caps` makes a command (run,
 * certify, the agent API) allocate: {@link GRAPH_RUN_HOST_STATES} dense states of d f64 on the
 * host; in the wasm arena one state plus Q's per-slot work (about 20 values per slot).
 */
export function graphMemory(k: number, caps: { claims: number; answers: number; questions: number }): MemoryEstimate {
  const nmax = caps.claims + caps.answers + caps.questions;
  const d = graphDimension(k, nmax);
  return {
    hostBytes: GRAPH_RUN_HOST_STATES * 8 * d,
    wasmBytes: 8 * d + 8 * ((k + 1) * nmax + 20 * nmax),
    largestArray: d,
  };
}

/**
 * Checks a graph's capacities and k before any state is allocated ({@link graphMemory}).
 * @throws {ArgumentError} named `graph.capacities` with Nmax, k, d and the bytes.
 */
export function checkGraphMemory(
  k: number,
  caps: { claims: number; answers: number; questions: number },
  limit?: MemoryLimit,
): void {
  const nmax = caps.claims + caps.answers + caps.questions;
  requireMemory(
    'graph.capacities',
    `Nmax = ${nmax}, k = ${k}: d = ${graphDimension(k, nmax)}`,
    graphMemory(k, caps),
    limit,
  );
}

/**
 * Memory a user system of dimension `dim` makes `certify` allocate when it decides a subspace of
 * dimension up to `subspaceDim` (default d): the states (as for the graph run) plus the dense
 * m × m block Jacobian and the m × m null-space work of the largest subspace. The Jacobian
 * columns are sparse and not counted (their size depends on the operators' coupling).
 */
export function systemMemory(dim: number, subspaceDim: number = dim): MemoryEstimate {
  const m = Math.min(subspaceDim, dim);
  return {
    hostBytes: GRAPH_RUN_HOST_STATES * 8 * dim + 2 * 8 * m * m,
    wasmBytes: 0,
    largestArray: Math.max(dim, m * m),
  };
}

/**
 * Checks a user system's dimension and its largest declared subspace ({@link systemMemory}).
 * @throws {ArgumentError} named `argument` (default `system.dim`).
 */
export function checkSystemMemory(
  dim: number,
  subspaceDim?: number,
  argument = 'system.dim',
  limit?: MemoryLimit,
): void {
  const m = subspaceDim ?? dim;
  requireMemory(
    argument,
    m === dim ? `d = ${dim}` : `d = ${dim}, subspace dimension ${m}`,
    systemMemory(dim, m),
    limit,
  );
}

/**
 * Memory for reading a text file of `bytes` bytes and parsing it as JSON: the UTF-8 text as a
 * string (up to 2 bytes per character in V8) and the parsed document (bounded by about 8 times
 * the text for arrays of short numbers).
 */
export function jsonFileMemory(bytes: number): MemoryEstimate {
  return { hostBytes: 10 * bytes, wasmBytes: 0, largestArray: 0 };
}

/**
 * Checks a JSON input file's length before it is read: within V8's string length and the
 * machine ({@link jsonFileMemory}).
 * @throws {ArgumentError} named `argument` with the file's size.
 */
export function checkJsonFileSize(argument: string, file: string, bytes: number, limit?: MemoryLimit): void {
  if (bytes > MAX_STRING_LENGTH)
    throw new ArgumentError(
      argument,
      file,
      `too large: ${formatBytes(bytes)}, more than the ${formatBytes(MAX_STRING_LENGTH)} a JavaScript string can hold`,
    );
  requireMemory(argument, `${file} (${formatBytes(bytes)})`, jsonFileMemory(bytes), limit);
}

/**
 * Memory a dense rows × cols matrix argument makes a linear-algebra call allocate: its f64 copy
 * and workspace (2·rows·cols) and the cols × cols factors the decompositions return (right
 * singular vectors, null-space basis, Gramian, eigenvectors; 2·cols²). A shape that holds few
 * values (0 × 2^40) can still ask for a huge cols × cols result.
 */
export function matrixMemory(rows: number, cols: number): MemoryEstimate {
  return {
    hostBytes: 8 * (2 * rows * cols + 2 * cols * cols),
    wasmBytes: 0,
    largestArray: Math.max(rows * cols, cols * cols),
  };
}

/**
 * Checks a matrix argument's shape before anything of its size is allocated ({@link matrixMemory}).
 * @throws {ArgumentError} named `name` with the shape and the bytes.
 */
export function checkMatrixMemory(name: string, rows: number, cols: number, limit?: MemoryLimit): void {
  requireMemory(name, `${rows} × ${cols}`, matrixMemory(rows, cols), limit);
}

/**
 * Bytes of one per-unit record of a replay (one rule on one item × repeat: its stop, answer and
 * samples used), rounded up from about 490 B measured on examples/samples/synthetic.jsonl
 * (60 items, the 9 default rules: the resident set grows 102 MB from 10 to 400 repeats).
 */
export const REPLAY_RECORD_BYTES = 1024;

/** Memory `compare` (replaySamples) needs for `items` × `repeats` units under `rules` rules. */
export function replayMemory(items: number, repeats: number, rules: number): MemoryEstimate {
  return { hostBytes: REPLAY_RECORD_BYTES * items * repeats * rules, wasmBytes: 0, largestArray: 0 };
}

/**
 * Checks `--repeats` against the samples and rules before the replay starts ({@link replayMemory}).
 * @throws {ArgumentError} named `--repeats` with items × repeats × rules and the bytes.
 */
export function checkReplayMemory(items: number, repeats: number, rules: number, limit?: MemoryLimit): void {
  requireMemory(
    '--repeats',
    `${items} items × ${repeats} repeats × ${rules} rules`,
    replayMemory(items, repeats, rules),
    limit,
  );
}

/** The error of an input file the system would not stat or read, naming its error code. */
function cannotRead(argument: string, file: string, e: unknown): ArgumentError {
  return new ArgumentError(argument, file, `cannot be read (${(e as NodeJS.ErrnoException)?.code ?? 'error'})`);
}

/**
 * Checks an input file before it is read: it exists, is not a folder, a device or a socket (a
 * device such as /dev/zero never ends: reading it would only stop at V8's string limit), and its
 * size fits ({@link checkJsonFileSize}). FIFOs are allowed (`--graph <(cmd)`).
 * @throws {ArgumentError} named `argument` with the path.
 */
export function checkInputFile(argument: string, file: string, limit?: MemoryLimit): void {
  let st: Stats;
  try {
    st = statSync(file);
  } catch (e) {
    throw cannotRead(argument, file, e);
  }
  if (st.isDirectory()) throw new ArgumentError(argument, file, 'is a folder, not a file');
  if (st.isCharacterDevice() || st.isBlockDevice() || st.isSocket())
    throw new ArgumentError(argument, file, 'is a device or socket, not a file');
  checkJsonFileSize(argument, file, st.size, limit);
}

/** The byte-order mark U+FEFF, which editors on Windows put at the start of UTF-8 files. */
const BYTE_ORDER_MARK = 0xfeff;

/**
 * The one reader of input files (graph, evidence, samples, run records, evidence memories):
 * checks the file first ({@link checkInputFile}), reads it as UTF-8 and drops a leading
 * byte-order mark, which JSON parsers refuse although it is no part of the text.
 * @throws {ArgumentError} named `argument` with the path: the checks, or the read failed.
 */
export async function readInputText(argument: string, file: string, limit?: MemoryLimit): Promise<string> {
  checkInputFile(argument, file, limit);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw cannotRead(argument, file, e);
  }
  return text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text;
}
