#!/usr/bin/env node
/**
 * Generates docs/benchmarks.md from the JSON that the benchmarks write (bench/results/*.json):
 * one short table per benchmark with its headline figures and the environment the JSON records.
 * The docs link to that page instead of quoting figures, so a new benchmark run changes one
 * generated file and no prose.
 *
 * Usage: node scripts/bench-table.mjs [--results DIR] [--out FILE]
 *   (defaults: bench/results and docs/benchmarks.md of this repository; `npm run bench:table`).
 *
 * Every expected results file must exist and hold the fields its table shows; otherwise the
 * script prints one line naming the file (and the field) to stderr, exits 1 and writes nothing.
 * A bad command-line argument exits 2. Plain Node ESM, no dependencies.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** A problem with one results file: reported as `<file>: <message>`. */
class ResultsError extends Error {
  constructor(file, message) {
    super(`${file}: ${message}`);
    this.name = 'ResultsError';
  }
}

/** A bad command-line argument (exit status 2). */
class UsageError extends Error {}

function parseArgs(argv) {
  const opts = { results: resolve(ROOT, 'bench/results'), out: resolve(ROOT, 'docs/benchmarks.md') };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      opts.help = true;
      continue;
    }
    if (arg !== '--results' && arg !== '--out') throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    const value = argv[++i];
    if (value === undefined || value.startsWith('--')) throw new UsageError(`${arg} needs a value`);
    opts[arg.slice(2)] = resolve(value);
  }
  return opts;
}

/** A path as the page shows it: relative to the repository when inside it, with forward slashes. */
function shown(path) {
  const rel = relative(ROOT, path);
  const inside = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  return (inside ? rel : path).split(sep).join('/');
}

// ---- reading fields with errors that name them

/** Reads `doc` along `path` ('gram[0].rows'); `kind`: 'number' | 'string' | 'array' | 'object' | 'any'. */
function field(ctx, obj, path, kind, { optional = false } = {}) {
  let v = obj;
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object') {
      v = undefined;
      break;
    }
    v = v[part];
  }
  const where = ctx.prefix ? `${ctx.prefix}.${path}` : path;
  if (v === undefined || v === null) {
    if (optional) return undefined;
    throw new ResultsError(ctx.file, `${where} is missing`);
  }
  const ok =
    kind === 'any' ||
    (kind === 'number' && typeof v === 'number' && Number.isFinite(v)) ||
    (kind === 'string' && typeof v === 'string') ||
    (kind === 'array' && Array.isArray(v)) ||
    (kind === 'object' && typeof v === 'object' && !Array.isArray(v)) ||
    (kind === 'boolean' && typeof v === 'boolean');
  if (!ok) throw new ResultsError(ctx.file, `${where} = ${JSON.stringify(v)}: expected ${article(kind)}`);
  return v;
}

const article = (kind) => (kind === 'array' || kind === 'object' ? `an ${kind}` : `a ${kind}`);

/** The entries of an array field, each with a context that names its index in errors. */
function rows(ctx, obj, path, { optional = false } = {}) {
  const list = field(ctx, obj, path, 'array', { optional });
  if (list === undefined) return [];
  if (list.length === 0 && !optional) throw new ResultsError(ctx.file, `${path} is empty`);
  const prefix = ctx.prefix ? `${ctx.prefix}.${path}` : path;
  return list.map((item, i) => ({ item, ctx: { file: ctx.file, prefix: `${prefix}[${i}]` } }));
}

// ---- formatting

/**
 * A figure as the tables print it: integers in full; otherwise about three significant digits
 * (whole numbers from 100, one decimal from 10, two from 1, three significant digits below,
 * exponent notation below 0.001). Missing values print as a dash.
 */
function fmt(x) {
  if (x === undefined || x === null) return '—';
  if (typeof x === 'boolean') return x ? 'yes' : 'no';
  if (typeof x !== 'number') return String(x);
  if (Number.isInteger(x)) return String(x);
  const a = Math.abs(x);
  if (a >= 100) return String(Math.round(x));
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  if (a >= 0.001) return String(Number(x.toPrecision(3)));
  return x.toExponential(2);
}

const times = (x) => (x === undefined || x === null ? '—' : `${fmt(x)}×`);
/** The "kernel build" cell of an environment table: the build the timed code ran, or that it ran none. */
const kernelCell = (ctx, obj) => {
  const k = field(ctx, obj, 'kernels', 'string', { optional: true });
  return k === 'none' ? 'none (no wasm kernel ran)' : k;
};

/** An optional [lo, hi] field as "lo–hi" (a dash when absent). */
function range(ctx, obj, path) {
  const r = field(ctx, obj, path, 'array', { optional: true });
  if (r === undefined) return '—';
  if (r.length !== 2 || !r.every((x) => typeof x === 'number' && Number.isFinite(x)))
    throw new ResultsError(
      ctx.file,
      `${ctx.prefix ? `${ctx.prefix}.` : ''}${path} = ${JSON.stringify(r)}: expected [lo, hi]`,
    );
  return `${fmt(r[0])}–${fmt(r[1])}`;
}

/** The sentence on how the native ratios were paired, when the results say (else nothing). */
function pairingNote(ctx, native) {
  const p = field(ctx, native, 'pairing', 'string', { optional: true });
  return p === undefined ? [] : [para(`eigh and the SVD of R: ${p}.`), ''];
}
const list = (xs) => (xs === undefined ? 'not recorded' : xs.map(fmt).join(' / '));

/** A Markdown table; a `|` inside a cell is escaped. */
function table(header, body) {
  const line = (cells) => `| ${cells.map((c) => String(c).replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...body.map(line)].join('\n');
}

/** Prose wrapped at 100 columns (the docs' convention). */
function para(text, width = 100) {
  const lines = [];
  let current = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (current && current.length + 1 + word.length > width) {
      lines.push(current);
      current = word;
    } else current = current ? `${current} ${word}` : word;
  }
  if (current) lines.push(current);
  return lines.join('\n');
}

/** The environment as the JSON records it (a field it lacks shows as "not recorded"). */
function environment(entries) {
  return table(
    ['environment', 'recorded'],
    entries.map(([name, value]) => [name, value === undefined ? 'not recorded' : value]),
  );
}

// ---- one renderer per benchmark

function renderLinalg(doc, ctx) {
  const out = [];
  const probe = (name) => {
    const p = field(ctx, doc, name, 'object', { optional: true });
    if (!p) return undefined;
    const c = { ...ctx, prefix: name };
    return `${fmt(field(c, p, 'soloGflops', 'number'))} GFLOP/s alone, ${list(field(c, p, 'pairGflops', 'array'))} as a pair (${times(field(c, p, 'pairOverSolo', 'number'))})`;
  };
  out.push(
    environment([
      ['date', field(ctx, doc, 'date', 'string', { optional: true })],
      ['node', field(ctx, doc, 'node', 'string', { optional: true })],
      ['kernel build', field(ctx, doc, 'kernels', 'string', { optional: true })],
      ['CPU', field(ctx, doc, 'cpu', 'string', { optional: true })],
      ['cores', field(ctx, doc, 'cores', 'number', { optional: true })],
      ['threads used', field(ctx, doc, 'threads', 'number', { optional: true })],
      ['tfjs backend', field(ctx, doc, 'tfjsBackend', 'string', { optional: true })],
      ['load average before / after', loadPair(ctx, doc, 'loadAverageBefore', 'loadAverageAfter')],
      ['CPU probe before the Gramian', probe('cpuProbeBefore')],
      ['each vCPU alone before', optionalList(ctx, doc, 'vcpuSoloGflopsBefore')],
      ['CPU probe after', probe('cpuProbeAfterGram')],
      ['each vCPU alone after', optionalList(ctx, doc, 'vcpuSoloGflopsAfterGram')],
      ['note', field(ctx, doc, 'caveat', 'string', { optional: true })],
    ]),
  );

  out.push(
    '',
    para(
      '**Gramian AᵀA** (`gram(A, k, m, { out })` end to end; GFLOP/s count 2·k·m²; "block": A an ' +
        '`F64Block` read in place; "×" = baseline time ÷ ours; tfjs is float32):',
    ),
    '',
    table(
      [
        'k×m',
        'kernel',
        '1 thread ms',
        '1 thread GFLOP/s',
        '2 threads GFLOP/s',
        '2 ÷ 1',
        'block 1 / 2 threads GFLOP/s',
        'kernel alone GFLOP/s',
        'ml-matrix ms',
        'vs ml-matrix',
        'tfjs wasm f32 ms',
        'vs tfjs',
      ],
      rows(ctx, doc, 'gram').map(({ item: g, ctx: c }) => [
        `${fmt(field(c, g, 'rows', 'number'))}×${fmt(field(c, g, 'cols', 'number'))}`,
        field(c, g, 'kernel', 'string', { optional: true }) ?? '—',
        fmt(field(c, g, 'ours1ThreadMs', 'number')),
        fmt(field(c, g, 'ours1ThreadGflops', 'number')),
        fmt(field(c, g, 'ours2ThreadsGflops', 'number', { optional: true })),
        times(field(c, g, 'twoThreadSpeedup', 'number', { optional: true })),
        `${fmt(field(c, g, 'blockInput1ThreadGflops', 'number', { optional: true }))} / ${fmt(field(c, g, 'blockInput2ThreadsGflops', 'number', { optional: true }))}`,
        fmt(field(c, g, 'kernelOnlyGflopsMedian', 'number', { optional: true })),
        fmt(field(c, g, 'mlMatrixMs', 'number')),
        times(field(c, g, 'speedupVsMlMatrix', 'number')),
        fmt(field(c, g, 'tfjsWasmF32Ms', 'number', { optional: true })),
        times(field(c, g, 'speedupVsTfjsWasmF32', 'number', { optional: true })),
      ]),
    ),
  );

  const targets = field(ctx, doc, 'gramTargets', 'object', { optional: true });
  if (targets) {
    const c = { ...ctx, prefix: 'gramTargets' };
    out.push(
      '',
      para(
        `Targets: one thread ≥ ${fmt(field(c, targets, 'oneThreadTarget', 'number'))} GFLOP/s ` +
          `(lowest over the sizes: ${fmt(field(c, targets, 'oneThreadMinGflops', 'number'))} from a ` +
          `JavaScript array, ${fmt(field(c, targets, 'oneThreadBlockInputMinGflops', 'number', { optional: true }))} ` +
          `from a block, ${fmt(field(c, targets, 'oneThreadKernelMinGflops', 'number', { optional: true }))} ` +
          `kernel alone); two threads ≥ ${times(field(c, targets, 'twoThreadTarget', 'number'))} one ` +
          `(lowest: ${times(field(c, targets, 'twoThreadMinSpeedup', 'number'))}).`,
      ),
    );
  }

  out.push(
    '',
    para(
      '**eigh** (values and vectors) against ml-matrix `EVD(assumeSymmetric)`; "out": into reused ' +
        'arrays; tfjs has no symmetric eigensolver:',
    ),
    '',
    table(
      [
        'm',
        'ours ms',
        'ours with out, ms',
        'ml-matrix ms',
        'vs ml-matrix',
        'vs ml-matrix, with out',
        'scaled residual',
        'scaled orthogonality',
      ],
      rows(ctx, doc, 'eigh').map(({ item: e, ctx: c }) => [
        fmt(field(c, e, 'm', 'number')),
        fmt(field(c, e, 'oursMs', 'number')),
        fmt(field(c, e, 'oursOutMs', 'number', { optional: true })),
        fmt(field(c, e, 'mlMatrixMs', 'number')),
        times(field(c, e, 'speedupVsMlMatrix', 'number')),
        times(field(c, e, 'speedupVsMlMatrixOut', 'number', { optional: true })),
        fmt(field(c, e, 'scaledResidual', 'number', { optional: true })),
        fmt(field(c, e, 'scaledOrthogonality', 'number', { optional: true })),
      ]),
    ),
  );

  if (field(ctx, doc, 'svdOfR', 'array', { optional: true })) {
    out.push(
      '',
      para(
        "**SVD of the streaming QR's R factor** (R of a 2m×m stack with two exact dependencies; " +
          '`StreamingQR.nullSpace`: values, rank and null-space basis; `svdvals`: values only; ' +
          'scaled residuals as defined in bench/linalg.ts):',
      ),
      '',
      table(
        ['m', 'nullSpace ms', 'svdvals ms', 'rank', 'scaled residual', 'scaled Σσ² vs ‖R‖²', 'scaled orthogonality'],
        rows(ctx, doc, 'svdOfR').map(({ item: e, ctx: c }) => [
          fmt(field(c, e, 'm', 'number')),
          fmt(field(c, e, 'nullSpaceMs', 'number')),
          fmt(field(c, e, 'svdvalsMs', 'number')),
          fmt(field(c, e, 'rank', 'number')),
          fmt(field(c, e, 'scaledResidual', 'number')),
          fmt(field(c, e, 'scaledFrobenius', 'number', { optional: true })),
          fmt(field(c, e, 'scaledOrthogonality', 'number')),
        ]),
      ),
    );
  }

  const qr = field(ctx, doc, 'rankStreamingQR', 'object', { optional: true });
  if (qr) {
    const c = { ...ctx, prefix: 'rankStreamingQR' };
    const slice = field(c, qr, 'slice2048', 'object', { optional: true });
    const sc = { ...ctx, prefix: 'rankStreamingQR.slice2048' };
    out.push(
      '',
      para(
        '**Rank of a tall stack** (one exact dependency; ours: `StreamingQR` in blocks of rows, then ' +
          'Jacobi on R; ml-matrix: QR, then SVD of R; tfjs: `tf.linalg.qr`, float32):',
      ),
      '',
      table(
        ['rows×cols', 'ours ms', 'rank', 'ml-matrix ms', 'ml-matrix rank', 'vs ml-matrix', 'tfjs on the full stack'],
        [
          [
            `${fmt(field(c, qr, 'rows', 'number'))}×${fmt(field(c, qr, 'cols', 'number'))}`,
            fmt(field(c, qr, 'oursMs', 'number')),
            fmt(field(c, qr, 'rank', 'number')),
            fmt(field(c, qr, 'mlMatrixQrPlusSvdMs', 'number', { optional: true })),
            fmt(field(c, qr, 'mlMatrixRank', 'number', { optional: true })),
            times(field(c, qr, 'speedupVsMlMatrix', 'number', { optional: true })),
            field(c, qr, 'tfjsWasmF32QrFullStack', 'any', { optional: true }) ?? '—',
          ],
        ],
      ),
    );
    if (slice) {
      out.push(
        '',
        para(
          `On a ${fmt(field(sc, slice, 'rows', 'number'))}-row slice: ours ` +
            `${fmt(field(sc, slice, 'oursMs', 'number'))} ms, tfjs ` +
            `${fmt(field(sc, slice, 'tfjsWasmF32QrMs', 'number'))} ms ` +
            `(${times(field(sc, slice, 'speedupVsTfjsWasmF32Qr', 'number'))}).`,
        ),
      );
    }
  }

  const native = field(ctx, doc, 'nativeNumpyOneThread', 'object', { optional: true });
  if (native) {
    const c = { ...ctx, prefix: 'nativeNumpyOneThread' };
    out.push(
      '',
      para(
        `**Native one-thread reference** (numpy ${field(c, native, 'numpy', 'any')} on OpenBLAS with one ` +
          'thread, measured in the same run; "ours ÷ native" > 1 means native is faster):',
      ),
      '',
      table(
        ['Gramian k×m', 'numpy AᵀA ms', 'ours ÷ numpy (wall)', 'kernel ÷ numpy (CPU time)'],
        rows(c, native, 'gram').map(({ item: g, ctx: gc }) => [
          String(field(gc, g, 'size', 'any')).replace('x', '×'),
          fmt(field(gc, g, 'numpyMs', 'number')),
          fmt(field(gc, g, 'oursApi1ThreadOverNumpyWall', 'number')),
          fmt(field(gc, g, 'oursKernelOverNumpyCpuTime', 'number', { optional: true })),
        ]),
      ),
      '',
      ...pairingNote(c, native),
      table(
        ['eigh m', 'LAPACK dsyevd ms', 'ours ÷ dsyevd (wall)', 'per-round range', 'ours ÷ dsyevd (CPU time)'],
        rows(c, native, 'eigh').map(({ item: e, ctx: ec }) => [
          fmt(field(ec, e, 'm', 'number')),
          fmt(field(ec, e, 'dsyevdMs', 'number')),
          fmt(field(ec, e, 'oursOverDsyevdWall', 'number')),
          range(ec, e, 'oursOverDsyevdRange'),
          fmt(field(ec, e, 'oursOverDsyevdCpuTime', 'number', { optional: true })),
        ]),
      ),
    );
    if (field(c, native, 'svdOfR', 'array', { optional: true })) {
      out.push(
        '',
        table(
          [
            'SVD of R, m',
            'dgesdd with vectors ms',
            'nullSpace ÷ dgesdd',
            'per-round range',
            'nullSpace ÷ dgesdd (CPU time)',
            'dgesdd values ms',
            'svdvals ÷ dgesdd values',
            'per-round range',
            'svdvals ÷ dgesdd values (CPU time)',
          ],
          rows(c, native, 'svdOfR').map(({ item: e, ctx: ec }) => [
            fmt(field(ec, e, 'm', 'number')),
            fmt(field(ec, e, 'dgesddWithVectorsMs', 'number')),
            fmt(field(ec, e, 'oursNullSpaceOverDgesdd', 'number')),
            range(ec, e, 'oursNullSpaceOverDgesddRange'),
            fmt(field(ec, e, 'oursNullSpaceOverDgesddCpuTime', 'number', { optional: true })),
            fmt(field(ec, e, 'dgesddValuesOnlyMs', 'number')),
            fmt(field(ec, e, 'oursSvdvalsOverDgesddValues', 'number')),
            range(ec, e, 'oursSvdvalsOverDgesddValuesRange'),
            fmt(field(ec, e, 'oursSvdvalsOverDgesddValuesCpuTime', 'number', { optional: true })),
          ]),
        ),
      );
    }
    const dt = field(ctx, doc, 'decisionStepTargets', 'object', { optional: true });
    if (dt) {
      const dc = { ...ctx, prefix: 'decisionStepTargets' };
      const sizes = field(dc, dt, 'sizes', 'array').map(fmt).join(' and ');
      out.push(
        '',
        para(
          `Decision-step target: eigh and the SVD of R within ${times(field(dc, dt, 'target', 'number'))} of numpy ` +
            `at m = ${sizes} (worst over those sizes: eigh ${times(field(dc, dt, 'worstEighOverDsyevd', 'number'))}, ` +
            `nullSpace ${times(field(dc, dt, 'worstNullSpaceOverDgesdd', 'number'))}, ` +
            `svdvals ${times(field(dc, dt, 'worstSvdvalsOverDgesddValues', 'number'))}).`,
        ),
      );
    }
    if (field(c, native, 'dgemm', 'array', { optional: true })) {
      out.push(
        '',
        para(
          'The gemm rate behind the blocked eigensolver (C = AB, m×m, one thread, CPU time; wasm f64x2 ' +
            'without FMA against OpenBLAS):',
        ),
        '',
        table(
          ['dgemm m', 'ours GFLOP/s', 'numpy GFLOP/s', 'numpy ÷ ours'],
          rows(c, native, 'dgemm').map(({ item: g, ctx: gc }) => [
            fmt(field(gc, g, 'm', 'number')),
            fmt(field(gc, g, 'oursGflops', 'number')),
            fmt(field(gc, g, 'numpyGflops', 'number')),
            fmt(field(gc, g, 'numpyOverOursRate', 'number')),
          ]),
        ),
      );
    }
  }
  return out.join('\n');
}

function loadPair(ctx, doc, before, after) {
  const b = field(ctx, doc, before, 'array', { optional: true });
  const a = field(ctx, doc, after, 'array', { optional: true });
  if (!b && !a) return undefined;
  return `${list(b)} → ${list(a)}`;
}

function optionalList(ctx, doc, path) {
  const xs = field(ctx, doc, path, 'array', { optional: true });
  return xs === undefined ? undefined : list(xs);
}

const CERTIFY_PHASES = [
  ['fixedPoint', 'fixed point'],
  ['contraction', 'contraction'],
  ['crossCheck', 'FD/autodiff cross-check'],
  ['redundancy', 'redundancy'],
  ['expandNorms', 'DP_e norms'],
  ['sensitivity', 'sensitivity'],
  ['columns', 'Σ_e columns'],
  ['gramian', 'Gramian/QR'],
  ['gramianMatrix', 'G_W (Gramian kernel + eigh)'],
  ['coverage', 'coverage'],
];

/** The options of a certification row when they are not the defaults, else undefined. */
function reducedRow(c, r) {
  const o = field(c, r, 'certifyOptions', 'string', { optional: true });
  return o !== undefined && !o.startsWith('defaults (') ? o : undefined;
}

/** The optional `hostSpeedGflops: { before, after? }` of a results file as "before / after". */
function hostSpeed(ctx, doc) {
  const speed = field(ctx, doc, 'hostSpeedGflops', 'object', { optional: true });
  if (speed === undefined) return undefined;
  const sc = { ...ctx, prefix: 'hostSpeedGflops' };
  const after = field(sc, speed, 'after', 'number', { optional: true });
  return `${fmt(field(sc, speed, 'before', 'number'))} / ${fmt(after)}`;
}

function renderCertify(doc, ctx) {
  const out = [];
  const load = field(ctx, doc, 'loadAverage', 'object', { optional: true });
  const lc = { ...ctx, prefix: 'loadAverage' };
  out.push(
    environment([
      ['date', field(ctx, doc, 'date', 'string', { optional: true })],
      ['node', field(ctx, doc, 'node', 'string', { optional: true })],
      ['kernel build', kernelCell(ctx, doc)],
      ['cores', field(ctx, doc, 'cores', 'number', { optional: true })],
      ['tfjs backend', field(ctx, doc, 'tfBackend', 'string', { optional: true })],
      ['load average before / after', load ? loadPair(lc, load, 'before', 'after') : undefined],
      ['host speed before / after (GFLOP/s, hostSpeedGflops)', hostSpeed(ctx, doc)],
      ['note', field(ctx, doc, 'caveat', 'string', { optional: true })],
    ]),
  );

  const graphRows = rows(ctx, doc, 'referenceGraph');
  const options = field(ctx, doc, 'options', 'string', { optional: true });
  out.push(
    '',
    para(
      options === undefined
        ? '**Certification of the reference graph** (synthetic scenario, every item incorporated, fixed ' +
            'point of Q from there, central-difference Jacobians); milliseconds per phase:'
        : `**Certification of the reference graph** (synthetic scenario, 32 items; options: ${options}; ` +
            'a row marked * ran with other options, below); milliseconds per phase:',
    ),
    '',
    table(
      [
        'Nmax',
        'd',
        'items',
        'certify ms',
        'peak RSS MB',
        'GC share',
        ...CERTIFY_PHASES.map(([, label]) => `${label} ms`),
        'Jacobian columns',
      ],
      graphRows.map(({ item: r, ctx: c }) => [
        fmt(field(c, r, 'nmax', 'number')) + (reducedRow(c, r) ? '*' : ''),
        fmt(field(c, r, 'd', 'number')),
        fmt(field(c, r, 'items', 'number', { optional: true })),
        fmt(field(c, r, 'certifyMs', 'number')),
        fmt(field(c, r, 'peakRssMB', 'number', { optional: true })),
        fmt(field(c, r, 'gcShare', 'number', { optional: true })),
        ...CERTIFY_PHASES.map(([key]) => fmt(field(c, r, `phasesMs.${key}`, 'number', { optional: true }))),
        fmt(field(c, r, 'jacobian.columns', 'number', { optional: true })),
      ]),
    ),
    '',
    para(
      'Verdicts in the same run (confidence-block contraction: empirical lower bound / local norm / ' +
        'analytic bound; each contraction search: its verdict, the largest ratio found and the ' +
        'evaluations of Q it spent; each subspace: kernel dimension of its dimension):',
    ),
    '',
    table(
      ['Nmax', 'confidence contraction', 'contraction searches', 'redundancy fails', 'subspaces'],
      graphRows.map(({ item: r, ctx: c }) => {
        const cc = field(c, r, 'confidenceContraction', 'object', { optional: true });
        const ccc = { ...c, prefix: `${c.prefix}.confidenceContraction` };
        const contraction = cc
          ? `${field(ccc, cc, 'verdict', 'string')} (${fmt(field(ccc, cc, 'empiricalLowerBound', 'number', { optional: true }))} / ${fmt(field(ccc, cc, 'localNorm', 'number', { optional: true }))} / ${fmt(field(ccc, cc, 'analyticBound', 'number', { optional: true }))})`
          : '—';
        const subspaces = rows(c, r, 'subspaces', { optional: true })
          .map(
            ({ item: s, ctx: sc }) =>
              `${field(sc, s, 'name', 'string')}: kernel ${fmt(field(sc, s, 'kernelDim', 'number'))} of ${fmt(field(sc, s, 'dim', 'number'))}`,
          )
          .join('; ');
        const searches = rows(c, r, 'contractionBlocks', { optional: true })
          .map(
            ({ item: b, ctx: bc }) =>
              `${field(bc, b, 'subspace', 'string')} (${fmt(field(bc, b, 'dim', 'number'))}): ${field(bc, b, 'verdict', 'string')}, ratio ${fmt(field(bc, b, 'empiricalLowerBound', 'number'))}, ${fmt(field(bc, b, 'evaluations', 'number'))} Q`,
          )
          .join('; ');
        return [
          fmt(field(c, r, 'nmax', 'number')),
          contraction,
          searches || '—',
          fmt(field(c, r, 'redundancyFails', 'number', { optional: true })),
          subspaces || '—',
        ];
      }),
    ),
  );

  const reduced = graphRows
    .map(({ item: r, ctx: c }) => [field(c, r, 'nmax', 'number'), reducedRow(c, r)])
    .filter(([, o]) => o);
  if (reduced.length) out.push('', para(`* ${reduced.map(([n, o]) => `Nmax ${fmt(n)}: ${o}`).join('; ')}.`));
  const growth = field(ctx, doc, 'growthExponents', 'object', { optional: true });
  if (growth) {
    const gc = { ...ctx, prefix: 'growthExponents' };
    const phases = field(gc, growth, 'phases', 'object', { optional: true }) ?? {};
    out.push(
      '',
      para(
        `Growth exponents (least-squares slope of log ms on log Nmax; certify and its phases over the ` +
          `rows with the default options${field(gc, growth, 'defaultSizes', 'array', { optional: true }) ? ` (Nmax ${list(field(gc, growth, 'defaultSizes', 'array'))})` : ''}, ` +
          `the linearisation over every row): certify ` +
          `${fmt(field(gc, growth, 'certify', 'any', { optional: true }))}, wasm linearisation ` +
          `${fmt(field(gc, growth, 'linearizationWasm', 'any', { optional: true }))}; by phase: ` +
          Object.entries(phases)
            .map(([k, v]) => `${k} ${fmt(v)}`)
            .join(', ') +
          '.',
      ),
    );
  }
  const linRows = graphRows.filter(({ item: r }) => r && typeof r === 'object' && r.linearization);
  if (linRows.length) {
    out.push(
      '',
      para(
        '**The linearisation on its own** at the state certify linearised at (DQ images of every basis ' +
          'vector of the subspaces and question bases, then Σ_e B or DF_e B per item): the wasm engines ' +
          'on all items, and wasm against the TypeScript path (generic central differences on the ' +
          'TypeScript Q and P_e) on the same columns of the first items, with the largest deviation ' +
          'relative to each column’s scale:',
      ),
      '',
      table(
        [
          'Nmax',
          'columns (all items)',
          'wasm ms (all items)',
          'items compared',
          'columns compared',
          'wasm ms',
          'TypeScript ms',
          'TypeScript ÷ wasm',
          'max relative deviation',
        ],
        linRows.map(({ item: r, ctx: c }) => {
          const l = r.linearization;
          const lc = { ...c, prefix: `${c.prefix}.linearization` };
          return [
            fmt(field(c, r, 'nmax', 'number')),
            fmt(field(lc, l, 'columns', 'number', { optional: true })),
            fmt(field(lc, l, 'wasmMs', 'number')),
            fmt(field(lc, l, 'compareItems', 'any', { optional: true })),
            fmt(field(lc, l, 'compareColumns', 'any', { optional: true })),
            fmt(field(lc, l, 'wasmCompareMs', 'any', { optional: true })),
            fmt(field(lc, l, 'typescriptCompareMs', 'any', { optional: true })),
            times(field(lc, l, 'speedup', 'any', { optional: true })),
            fmt(field(lc, l, 'maxRelativeDeviation', 'any', { optional: true })),
          ];
        }),
      ),
    );
  }

  const fa = field(ctx, doc, 'fdVsAutodiff', 'object', { optional: true });
  if (fa) {
    const c = { ...ctx, prefix: 'fdVsAutodiff' };
    out.push(
      '',
      para(
        `**Dense Jacobian of tanh(Wx), n = ${fmt(field(c, fa, 'n', 'number'))}** (central differences in f64 ` +
          'against tfjs autodiff in float32):',
      ),
      '',
      table(
        [
          'FD batched ms',
          'FD per column ms',
          'autodiff batched VJP ms',
          'autodiff row by row ms',
          'batched ÷ row by row',
          'max |J_fd − J_ad|',
          'relative to the largest entry',
        ],
        [
          [
            fmt(field(c, fa, 'fdBatchedMs', 'number')),
            fmt(field(c, fa, 'fdPerColumnMs', 'number', { optional: true })),
            fmt(field(c, fa, 'autodiffBatchedVjpMs', 'number')),
            fmt(field(c, fa, 'autodiffRowByRowMs', 'number', { optional: true })),
            times(field(c, fa, 'batchedVjpSpeedup', 'number', { optional: true })),
            fmt(field(c, fa, 'maxAbsDifference', 'number')),
            fmt(field(c, fa, 'relativeToMaxEntry', 'number', { optional: true })),
          ],
        ],
      ),
    );
  }

  const floor = field(ctx, doc, 'denseJacobianVsGemmFloor', 'object', { optional: true });
  if (floor) {
    const c = { ...ctx, prefix: 'denseJacobianVsGemmFloor' };
    const sides = ['oneThread', 'twoThreads']
      .map((key) => [key, field(c, floor, key, 'object', { optional: true })])
      .filter(([, v]) => v);
    out.push(
      '',
      para(
        `**Batched FD Jacobian against the "GEMM floor", n = ${fmt(field(c, floor, 'n', 'number'))}** (floor: ` +
          "2n³ flops at the Gramian kernel's counted rate; outputs reused on both sides):",
      ),
      '',
      table(
        [
          'threads',
          'floor ms',
          'Gramian GFLOP/s',
          'FD Jacobian ms',
          'evaluation alone ms',
          'GEMM alone ms',
          'GEMM GFLOP/s',
          'Jacobian ÷ floor',
          'GEMM ÷ floor',
          'Jacobian ÷ evaluation',
        ],
        sides.map(([key, s]) => {
          const sc = { ...ctx, prefix: `denseJacobianVsGemmFloor.${key}` };
          return [
            fmt(field(sc, s, 'threads', 'number')),
            fmt(field(sc, s, 'floorMs', 'number')),
            fmt(field(sc, s, 'gramGflops', 'number', { optional: true })),
            fmt(field(sc, s, 'batchedFdJacobianMs', 'number')),
            fmt(field(sc, s, 'batchedEvaluationOnlyMs', 'number', { optional: true })),
            fmt(field(sc, s, 'gemmOnlyMs', 'number', { optional: true })),
            fmt(field(sc, s, 'gemmOnlyGflops', 'number', { optional: true })),
            times(field(sc, s, 'ratioToFloor', 'number')),
            times(field(sc, s, 'gemmOnlyOverFloor', 'number', { optional: true })),
            times(field(sc, s, 'ratioToBatchedEvaluation', 'number', { optional: true })),
          ];
        }),
      ),
    );
    const mixed = field(c, floor, 'jacobianOnPoolOverOneThreadFloor', 'number', { optional: true });
    const target = field(c, floor, 'target', 'any', { optional: true });
    if (mixed !== undefined || target !== undefined) {
      out.push(
        '',
        para(
          `Jacobian on the pool ÷ one-thread floor: ${times(mixed)}; target: ${target === undefined ? 'not recorded' : `Jacobian ÷ floor ${target}`}.`,
        ),
      );
    }
  }
  return out.join('\n');
}

function renderOrderGapNmax(doc, ctx) {
  const out = [];
  const env = field(ctx, doc, 'environment', 'object', { optional: true }) ?? {};
  const ec = { ...ctx, prefix: 'environment' };
  const loads = field(ec, env, 'loadavg', 'array', { optional: true });
  out.push(
    environment([
      ['date', field(ctx, doc, 'date', 'string', { optional: true })],
      ['node', field(ec, env, 'node', 'string', { optional: true })],
      ['kernel build', kernelCell(ec, env)],
      ['cores', field(ec, env, 'cpus', 'number', { optional: true })],
      ['load average', loads === undefined ? undefined : list(loads)],
      ['note', field(ec, env, 'note', 'string', { optional: true })],
    ]),
  );
  const k = field(ctx, doc, 'k', 'number', { optional: true });
  const epn = field(ctx, doc, 'edgesPerNode', 'number', { optional: true });
  const seed = field(ctx, doc, 'seed', 'number', { optional: true });
  out.push(
    '',
    para(
      `**One order-gap evaluation Ω(θ; e)** on synthetic problems (k = ${fmt(k)}, about ${fmt(epn)} stored ` +
        `edges per node, seed ${fmt(seed)}). "baseline": two streaming passes over the 3·Nmax² edge ` +
        'weights in the same process; "peak ÷ θ": peak memory over the bytes of one state vector; ' +
        '"generic": two full Q and P_e applications; "same Ω": the sparse path returned the dense Ω ' +
        'bit for bit (sizes without a dense θ run the sparse and neighbourhood-only paths only):',
    ),
    '',
    table(
      [
        'Nmax',
        'd',
        'stored edges',
        'dense Ω ms',
        'baseline ms',
        'Ω ÷ baseline',
        'peak ÷ θ',
        'generic ms',
        'sparse ms',
        'local ms',
        'same Ω',
      ],
      rows(ctx, doc, 'results').map(({ item: r, ctx: c }) => [
        fmt(field(c, r, 'nmax', 'number')),
        fmt(field(c, r, 'dim', 'number')),
        fmt(field(c, r, 'nnz', 'number')),
        fmt(field(c, r, 'msOmega', 'number', { optional: true })),
        fmt(field(c, r, 'msBaseline', 'number', { optional: true })),
        times(field(c, r, 'ratio', 'number', { optional: true })),
        fmt(field(c, r, 'peakOverStateVector', 'number', { optional: true })),
        fmt(field(c, r, 'msGeneric', 'number', { optional: true })),
        fmt(field(c, r, 'msSparse', 'number')),
        fmt(field(c, r, 'msLocal', 'number')),
        fmt(field(c, r, 'sparseEqualsDense', 'boolean', { optional: true })),
      ]),
    ),
  );
  const fits = field(ctx, doc, 'fits', 'object', { optional: true });
  if (fits) {
    const c = { ...ctx, prefix: 'fits' };
    out.push(
      '',
      para(
        `Fitted growth exponents (least squares in log-log): dense ${fmt(field(c, fits, 'denseExponent', 'number'))}, ` +
          `baseline ${fmt(field(c, fits, 'baselineExponent', 'number'))}, ` +
          `sparse ${fmt(field(c, fits, 'sparseExponent', 'number', { optional: true }))}, ` +
          `local ${fmt(field(c, fits, 'localExponent', 'number', { optional: true }))}.`,
      ),
    );
  }
  return out.join('\n');
}

/** The `--rules all` comparison of bench/stopping.ts: every registered rule, its figures and the Pareto front. */
function renderAllRules(all, ctx) {
  const front = field(ctx, all, 'paretoFront', 'array');
  const signed = (x) => `${x > 0 ? '+' : ''}${fmt(x)}`;
  return [
    para(
      '**Every registered rule at its defaults** (`ordergap compare --rules all`, the fixed budget as the ' +
        `baseline; same file, orders and seed; ${fmt(field(ctx, all, 'pairedUnits', 'number'))} paired units). ` +
        '"front" marks the Pareto front of accuracy against mean samples: no other rule is at least as accurate ' +
        `for at most as many samples, one of the two strictly. Plot: \`bench/results/${field(ctx, all, 'plot', 'string')}\`.`,
    ),
    '',
    table(
      ['rule', 'accuracy', 'Δ 95% CI', 'mean samples', 'false stops', 'front'],
      rows(ctx, all, 'rules').map(({ item: r, ctx: c }) => {
        const ci = field(c, r, 'accuracyDifference', 'object', { optional: true });
        const cc = { ...c, prefix: `${c.prefix}.accuracyDifference` };
        const label = field(c, r, 'label', 'string');
        const name = field(c, r, 'name', 'string');
        return [
          label.startsWith(name) ? label : `${name}: ${label}`,
          fmt(field(c, r, 'accuracy', 'number')),
          ci ? `[${signed(field(cc, ci, 'low', 'number'))}, ${signed(field(cc, ci, 'high', 'number'))}]` : '—',
          fmt(field(c, r, 'meanSamples', 'number')),
          fmt(field(c, r, 'falseStopRate', 'number')),
          front.includes(label) ? '*' : '',
        ];
      }),
    ),
  ];
}

function renderStopping(doc, ctx) {
  const out = [];
  const env = field(ctx, doc, 'environment', 'object', { optional: true }) ?? {};
  const ec = { ...ctx, prefix: 'environment' };
  out.push(
    environment([
      ['date', field(ctx, doc, 'date', 'string', { optional: true })],
      ['node', field(ec, env, 'node', 'string', { optional: true })],
      ['kernel build', kernelCell(ec, env)],
      ['cores', field(ec, env, 'cpus', 'number', { optional: true })],
    ]),
  );
  const sc = { ...ctx, prefix: 'samples' };
  const samples = field(ctx, doc, 'samples', 'object');
  const pct = fmt;
  const signed = (x) => `${x > 0 ? '+' : ''}${fmt(x)}`;
  const front = field(ctx, doc, 'paretoFront', 'array', { optional: true });
  out.push(
    '',
    para(
      `**Stopping rules on recorded samples** (\`${field(sc, samples, 'file', 'string')}\`, ` +
        `${fmt(field(sc, samples, 'items', 'number'))} items, sha256 ${field(sc, samples, 'sha256', 'string')}; ` +
        `${fmt(field(ctx, doc, 'repeats', 'number'))} seeded sample orders, seed ${fmt(field(ctx, doc, 'seed', 'number'))}, ` +
        `budget ${fmt(field(ctx, doc, 'budget', 'number'))}; ${fmt(field(ctx, doc, 'pairedUnits', 'number'))} paired units). ` +
        'Accuracy, agreement and false stops are fractions of the paired units; ' +
        '"Δ 95% CI": paired interval for the accuracy difference to the full budget, clustered by item; ' +
        '"false stops": share of units whose answer differs from the full-budget vote (1 − agreement)' +
        (front ? '; "front": on the Pareto front of accuracy against mean samples. ' : '. ') +
        `Plot: \`bench/results/${field(ctx, doc, 'plot', 'string')}\`.`,
    ),
    '',
    table(
      [
        'rule',
        'accuracy',
        'Δ vs full',
        'Δ 95% CI',
        'mean samples',
        'agrees w/ full vote',
        'false stops',
        ...(front ? ['front'] : []),
        'note',
      ],
      rows(ctx, doc, 'rules').map(({ item: r, ctx: c }) => {
        const ci = field(c, r, 'accuracyDifference', 'object', { optional: true });
        const cc = { ...c, prefix: `${c.prefix}.accuracyDifference` };
        const name = field(c, r, 'name', 'string');
        return [
          field(c, r, 'label', 'string'),
          pct(field(c, r, 'accuracy', 'number')),
          signed(field(c, r, 'accuracyChange', 'number')),
          ci ? `[${signed(field(cc, ci, 'low', 'number'))}, ${signed(field(cc, ci, 'high', 'number'))}]` : '—',
          fmt(field(c, r, 'meanSamples', 'number')),
          pct(field(c, r, 'agreement', 'number')),
          pct(field(c, r, 'falseStopRate', 'number')),
          ...(front ? [front.includes(field(c, r, 'label', 'string')) ? '*' : ''] : []),
          name === 'patience'
            ? 'does not fit votes (docs/stopping.md)'
            : name === 'anytime' || name === 'pool'
              ? 'P(false stop) <= δ'
              : '',
        ];
      }),
    ),
  );
  const all = field(ctx, doc, 'allRules', 'object', { optional: true });
  if (all) out.push('', ...renderAllRules(all, { ...ctx, prefix: 'allRules' }));
  const syn = field(ctx, doc, 'synthetic', 'object');
  const yc = { ...ctx, prefix: 'synthetic' };
  const trials = rows(yc, syn, 'results');
  const dists = [...new Set(trials.map(({ item, ctx: c }) => field(c, item, 'distribution', 'string')))];
  // columns headed by the shape each distribution stands for, where recorded
  const shapes = rows(yc, syn, 'shapes', { optional: true }).map(({ item, ctx: c }) => ({
    name: field(c, item, 'name', 'string'),
    shape: field(c, item, 'shape', 'string'),
  }));
  const heading = (d) => shapes.find((x) => x.name === d)?.shape ?? d;
  const ruleLabels = [...new Set(trials.map(({ item, ctx: c }) => field(c, item, 'rule', 'string')))];
  // a registered name that builds another rule (majority is plurality's ratio test) says so
  const ruleName = (label) => {
    const t = trials.find(({ item }) => item.rule === label);
    const name = t && field(t.ctx, t.item, 'name', 'string', { optional: true });
    return name === undefined || label.startsWith(name) ? label : `${name}: ${label}`;
  };
  out.push(
    '',
    para(
      `**False stops on synthetic streams with a known answer** (${fmt(field(yc, syn, 'streams', 'number'))} independent ` +
        `streams per distribution, at most ${fmt(field(yc, syn, 'maxSteps', 'number'))} samples): share of streams the rule ` +
        'stopped by its own test on an answer other than the most likely one, in brackets (where recorded) on an ' +
        "answer other than the vote of all the stream's samples, and (after the slash) mean samples." +
        (shapes.length
          ? ` Shapes (src/lab/syntheticStreams.ts): ${shapes.map((x) => `${x.shape} = \`${x.name}\``).join('; ')}.`
          : ''),
    ),
    '',
    table(
      ['rule', ...dists.map(heading)],
      ruleLabels.map((label) => [
        ruleName(label),
        ...dists.map((d) => {
          const t = trials.find(({ item }) => item.rule === label && item.distribution === d);
          if (!t) return '—';
          const full = field(t.ctx, t.item, 'fullVoteFalseStopRate', 'number', { optional: true });
          return `${pct(field(t.ctx, t.item, 'falseStopRate', 'number'))}${full === undefined ? '' : ` (${pct(full)})`} / ${fmt(field(t.ctx, t.item, 'meanSamples', 'number'))}`;
        }),
      ]),
    ),
  );
  const capRows = rows(ctx, doc, 'anytimeCaps', { optional: true });
  if (capRows.length > 0)
    out.push(
      '',
      para(
        "**The anytime rule's cap on its all-in weight** (`maxWeight`; every cap keeps the guarantee): the " +
          'derived weight w and unanimous stop n*, accuracy, mean samples (ESC w = 5 on the same set alongside) and ' +
          'the false-stop rate against the full-budget vote, on the shared file and on the synthetic set the ' +
          'order-gap default is chosen on.',
      ),
      '',
      table(
        ['set', 'cap', 'w', 'n*', 'accuracy', 'mean samples', 'ESC mean samples', 'false stops'],
        capRows.map(({ item, ctx: c }) => {
          const mix = field(c, item, 'mixture', 'object');
          return [
            field(c, item, 'set', 'string'),
            fmt(field(c, item, 'maxWeight', 'number')),
            fmt(field({ ...c, prefix: `${c.prefix}.mixture` }, mix, 'weight', 'number')),
            fmt(mix.unanimousStop ?? 'none'),
            pct(field(c, item, 'accuracy', 'number')),
            fmt(field(c, item, 'meanSamples', 'number')),
            fmt(field(c, item, 'escMeanSamples', 'number')),
            pct(field(c, item, 'falseStopRate', 'number')),
          ];
        }),
      ),
    );
  const pool = field(ctx, doc, 'poolSpending', 'object', { optional: true });
  if (pool) {
    const pc = { ...ctx, prefix: 'poolSpending' };
    out.push(
      '',
      para(
        "**The exact pool test's spending exponent** ρ (`spending`; every ρ keeps the guarantee): accuracy, mean " +
          'samples (ESC w = 5 on the same set alongside) and the false-stop rate against the full-budget vote. ' +
          `The default is the ρ with the fewest mean samples on the synthetic set: ${fmt(field(pc, pool, 'chosenOnSynthetic', 'number'))} ` +
          `(the library's default: ${fmt(field(pc, pool, 'default', 'number'))}).`,
      ),
      '',
      table(
        ['set', 'ρ', 'accuracy', 'mean samples', 'ESC mean samples', 'false stops'],
        rows(pc, pool, 'rows').map(({ item, ctx: c }) => [
          field(c, item, 'set', 'string'),
          fmt(field(c, item, 'spending', 'number')),
          pct(field(c, item, 'accuracy', 'number')),
          fmt(field(c, item, 'meanSamples', 'number')),
          fmt(field(c, item, 'escMeanSamples', 'number')),
          pct(field(c, item, 'falseStopRate', 'number')),
        ]),
      ),
    );
  }
  const cal = field(ctx, doc, 'calibration', 'object');
  const kc = { ...ctx, prefix: 'calibration' };
  const chosen = field(kc, cal, 'chosen', 'object', { optional: true });
  out.push(
    '',
    para(
      'The order-gap default is the cheapest grid point whose paired accuracy loss to the full budget is not ' +
        'significant on 1000 synthetic items (src/lab/calibrate.ts); chosen here: ' +
        (chosen ? `ε = ${fmt(chosen.epsilon)}, w = ${fmt(chosen.window)}.` : 'none.') +
        ' The timings: replay and plot ' +
        `${fmt(field(ctx, doc, 'timings.replayAndPlotMs', 'number'))} ms, synthetic streams ` +
        `${fmt(field(ctx, doc, 'timings.syntheticMs', 'number'))} ms, selection ${fmt(field(ctx, doc, 'timings.calibrationMs', 'number'))} ms.`,
    ),
  );
  const shapeCal = field(ctx, doc, 'shapeCalibration', 'object', { optional: true });
  if (shapeCal) {
    const sctx = { ...ctx, prefix: 'shapeCalibration' };
    const picked = field(sctx, shapeCal, 'chosen', 'object', { optional: true });
    const on = field(sctx, shapeCal, 'onSamples', 'object', { optional: true });
    const oc = { ...sctx, prefix: 'shapeCalibration.onSamples' };
    out.push(
      '',
      para(
        'The same rule on every synthetic shape at once (300 items per shape, calibrateOnShapes in src/lab/calibrate.ts) chooses ' +
          (picked ? `ε = ${fmt(picked.epsilon)}, w = ${fmt(picked.window)}` : 'nothing') +
          (on
            ? `; on these samples it changes accuracy by ${fmt(100 * field(oc, on, 'accuracyChange', 'number'))} points at ${fmt(field(oc, on, 'meanSamples', 'number'))} mean samples, ` +
              `${fmt(field(oc, on, 'ratioToBeta', 'number'))} × the Beta rule's ${fmt(field(oc, on, 'betaMeanSamples', 'number'))} ` +
              `(target: ${field(oc, on, 'statement', 'string')}: ${field(oc, on, 'met', 'boolean') ? 'met' : 'not met'}).`
            : '.'),
      ),
    );
  }
  return out.join('\n');
}

function renderOrderGapRun(doc, ctx) {
  const out = [];
  const env = field(ctx, doc, 'environment', 'object', { optional: true }) ?? {};
  const ec = { ...ctx, prefix: 'environment' };
  const loads = field(ec, env, 'loadavg', 'array', { optional: true });
  out.push(
    environment([
      ['node', field(ec, env, 'node', 'string', { optional: true })],
      ['kernel build', kernelCell(ec, env)],
      ['cores', field(ec, env, 'cpus', 'number', { optional: true })],
      ['load average', loads === undefined ? undefined : list(loads)],
      ['host speed before / after (GFLOP/s, hostSpeedGflops)', hostSpeed(ec, env)],
      ['note', field(ec, env, 'note', 'string', { optional: true })],
    ]),
  );
  out.push(
    '',
    para(
      `**Whole Algorithm 1 runs** of ${fmt(field(ctx, doc, 'steps', 'number'))} steps on synthetic scenarios ` +
        `(k = ${fmt(field(ctx, doc, 'k', 'number'))}, about ${fmt(field(ctx, doc, 'edgesPerNode', 'number'))} edges per node). ` +
        '"ms/step": the steady-state mean (steps 2 … T); "median": their median (the figure robust to the load ' +
        'spikes of a shared host); "run ms/step": the whole run ÷ T (step 1 also builds the ' +
        "run's state); " +
        '"Ω ms": one structure-aware Ω (the full fused pass over the CSR rows) in the same process, mean; ' +
        '"step ÷ Ω": median step over median Ω; ' +
        '"2 passes ms": two streaming passes over the state the run starts from (every array it holds: node block, CSR, ' +
        'CSC; dense: θ), mean; "step ÷ 2 passes": median step over their median; "step ÷ weight passes": median step ' +
        'over the median of two passes over the stored edge weights alone; "peak ÷ state": peak RSS over ' +
        'the bytes the state holds (structured: node block + CSR + CSC; dense: 8·d); "run adds ÷ state": ' +
        '(peak RSS − RSS before the run builds its state) over the same bytes:',
    ),
    '',
    table(
      [
        'Nmax',
        'state',
        'ms/step',
        'median',
        'run ms/step',
        'Q',
        'Ω ms',
        'step ÷ Ω',
        '2 passes ms',
        'step ÷ 2 passes',
        'step ÷ weight passes',
        'state bytes',
        'peak RSS MiB',
        'peak ÷ state',
        'run adds ÷ state',
      ],
      rows(ctx, doc, 'results').map(({ item: r, ctx: c }) => [
        fmt(field(c, r, 'nmax', 'number')),
        field(c, r, 'mode', 'string'),
        fmt(field(c, r, 'msPerStep', 'number')),
        fmt(field(c, r, 'msPerStepMedian', 'number')),
        fmt(field(c, r, 'msRunPerStep', 'number')),
        fmt(field(c, r, 'consolidations', 'number')),
        fmt(field(c, r, 'msOmega', 'number')),
        times(field(c, r, 'stepOverOmega', 'number')),
        fmt(field(c, r, 'msTwoPasses', 'number')),
        times(field(c, r, 'stepOverTwoPasses', 'number')),
        times(field(c, r, 'stepOverTwoPassesWeights', 'number', { optional: true })),
        fmt(field(c, r, 'stateBytes', 'number')),
        fmt(field(c, r, 'peakRssMB', 'number')),
        fmt(field(c, r, 'peakOverStateBytes', 'number')),
        fmt(field(c, r, 'growthOverStateBytes', 'number')),
      ]),
    ),
    '',
    para(
      `A bare \`node -e\` holds ${fmt(field({ ...ctx, prefix: 'memory' }, field(ctx, doc, 'memory', 'object'), 'emptyNodeRssMB', 'number'))} MiB resident before any library is loaded.`,
    ),
    '',
    para(
      `Fitted growth exponent of ms per step (structured, log-log): ${fmt(field({ ...ctx, prefix: 'fits' }, field(ctx, doc, 'fits', 'object'), 'structuredExponent', 'number'))}.`,
    ),
    '',
    para(
      '**Consolidation scheduling** (Sec. 7.3) against Q every step; "forced": steps whose own Ω exceeds the ' +
        'threshold (each runs Q, so at most 1 − forced ÷ Q always can be saved); ‖Δθ_T‖: ℓ2 distance of the ' +
        'final states over all d coordinates (the norm of Ω). The last rows sweep the threshold on the default scenario:',
    ),
    '',
    table(
      [
        'scenario',
        'ε',
        'threshold',
        'Q always',
        'Q scheduled',
        'forced',
        'share saved',
        'at most',
        'stop always',
        'stop scheduled',
        '‖Δθ_T‖',
      ],
      [...rows(ctx, doc, 'scheduling'), ...rows(ctx, doc, 'schedulingSweep')].map(({ item: r, ctx: c }) => [
        field(c, r, 'scenario', 'string'),
        fmt(field(c, r, 'epsilon', 'number')),
        fmt(field(c, r, 'threshold', 'number')),
        fmt(field(c, r, 'always.consolidations', 'number')),
        fmt(field(c, r, 'scheduled.consolidations', 'number')),
        fmt(field(c, r, 'forcedConsolidations', 'number')),
        fmt(field(c, r, 'saved', 'number')),
        fmt(field(c, r, 'savedAtMost', 'number')),
        `${field(c, r, 'always.reason', 'string')} at ${fmt(field(c, r, 'always.steps', 'number'))}`,
        `${field(c, r, 'scheduled.reason', 'string')} at ${fmt(field(c, r, 'scheduled.steps', 'number'))}`,
        fmt(field(c, r, 'finalDistance', 'number')),
      ]),
    ),
  );
  return out.join('\n');
}

/**
 * The environment table of a results file that records date, node, cores, a `loadAverage`
 * {before, after}, a caveat and, when given, more optional text fields (name, JSON key).
 */
function runEnvironment(doc, ctx, extra = []) {
  const load = field(ctx, doc, 'loadAverage', 'object', { optional: true });
  const lc = { ...ctx, prefix: 'loadAverage' };
  return environment([
    ['date', field(ctx, doc, 'date', 'string', { optional: true })],
    ['node', field(ctx, doc, 'node', 'string', { optional: true })],
    ['kernel build', kernelCell(ctx, doc)],
    ['cores', field(ctx, doc, 'cores', 'number', { optional: true })],
    ['load average before / after', load ? loadPair(lc, load, 'before', 'after') : undefined],
    ...extra.map(([name, key]) => [name, field(ctx, doc, key, 'string', { optional: true })]),
    ['note', field(ctx, doc, 'caveat', 'string', { optional: true })],
  ]);
}

/** Candidate stops checked and, in brackets, those finding a failing question ('—' in results without them). */
function checksCell(c, r) {
  const checks = field(c, r, 'checks', 'number', { optional: true });
  const failing = field(c, r, 'failingChecks', 'number', { optional: true });
  return checks === undefined ? '—' : `${fmt(checks)} (${failing === undefined ? '—' : fmt(failing)})`;
}

function renderCoverage(doc, ctx) {
  const out = [
    runEnvironment(doc, ctx),
    '',
    para(
      "**Stopping on the order-gap with and without the coverage check** (means over the seeds): the paper's " +
        'rule (first Ω̂ <= ε), the coverage-aware policies continue and redirect — redirect steered toward ' +
        'the items addressing the questions failing the coverage check (coverage, Sec. 7.3) or toward the ' +
        'items with Ω > ε (order-gap) — and the fixed budget; accuracy is the share of questions with ' +
        'competing answers whose best answer is the true one; checks: candidate stops checked over all ' +
        'seeds, in brackets those that found a question failing the check (uncovered, or addressed by no pool item):',
    ),
    '',
    table(
      [
        'scenario',
        'stop',
        'runs',
        'stop step',
        'accuracy',
        'true-answer confidence',
        'evidence used',
        'blind / converged stops',
        'checks (failing a question)',
        'ms',
      ],
      rows(ctx, doc, 'summary').map(({ item: r, ctx: c }) => [
        field(c, r, 'scenario', 'string'),
        field(c, r, 'stop', 'string'),
        fmt(field(c, r, 'runs', 'number')),
        fmt(field(c, r, 'meanStep', 'number')),
        fmt(field(c, r, 'meanAccuracy', 'number')),
        fmt(field(c, r, 'meanTrueConfidence', 'number')),
        fmt(field(c, r, 'meanEvidenceUsed', 'number')),
        `${fmt(field(c, r, 'blindStops', 'number'))} / ${fmt(field(c, r, 'convergedStops', 'number'))}`,
        checksCell(c, r),
        fmt(field(c, r, 'meanMs', 'number', { optional: true })),
      ]),
    ),
  ];
  return out.join('\n');
}

function renderProof(doc, ctx) {
  const out = [
    runEnvironment(doc, ctx, [['options', 'options']]),
    '',
    para(
      '**Contraction proved by enclosure** (median of the repetitions): the contraction phase of certify on one ' +
        'block with the proof (default) and without it (the float search and local norm alone), their ratio, the ' +
        'proved bound, the half-width of the box proved on and the width of the fixed point’s enclosure:',
    ),
    '',
    table(
      [
        'case',
        'd',
        'block',
        '|W|',
        'verdict',
        'upper bound',
        'box half-width',
        'enclosure width',
        'enclosures',
        'proof ms',
        'float ms',
        'proof ÷ float',
        'target ms',
        'met',
      ],
      rows(ctx, doc, 'cases').map(({ item: r, ctx: c }) => [
        field(c, r, 'case', 'string'),
        fmt(field(c, r, 'd', 'number')),
        field(c, r, 'block', 'string'),
        fmt(field(c, r, 'blockDim', 'number')),
        field(c, r, 'verdict', 'string'),
        fmt(field(c, r, 'upperBound', 'number', { optional: true })),
        fmt(field(c, r, 'boxHalfWidth', 'number', { optional: true })),
        fmt(field(c, r, 'enclosureWidth', 'number', { optional: true })),
        fmt(field(c, r, 'enclosures', 'number')),
        fmt(field(c, r, 'proofMs', 'number')),
        fmt(field(c, r, 'floatMs', 'number')),
        times(field(c, r, 'proofOverFloat', 'number')),
        fmt(field(c, r, 'targetMs', 'number', { optional: true })),
        (() => {
          const met = r.met;
          return met === null || met === undefined ? '—' : met ? 'yes' : 'NO';
        })(),
      ]),
    ),
  ];
  return out.join('\n');
}

/** The document-QA table's columns: header, field of a row, kind ('string?': may be null). */
const DOCUMENT_QA_COLUMNS = [
  ['chunks', 'chunks', 'number'],
  ['document', 'document', 'string'],
  ['read', 'read', 'number'],
  ['model calls', 'calls', 'number'],
  ['observations', 'steps', 'number'],
  ['ended', 'reason', 'string'],
  ['answer', 'answer', 'string?'],
  ['wall ms', 'wallMs', 'number'],
  ['model ms', 'modelMs', 'number'],
  ['ms a chunk', 'msPerChunk', 'number'],
  ['target ms', 'targetMs', 'number'],
  ['met', 'met', 'boolean'],
];

/** `repeats` ({ chunks: runs }) as '3 runs at 200 chunks, 1 at 5000'. */
function runsPerSize(ctx, doc) {
  const repeats = field(ctx, doc, 'repeats', 'object');
  const rc = { ...ctx, prefix: 'repeats' };
  return Object.keys(repeats)
    .map(
      (n, i) => `${fmt(field(rc, repeats, n, 'number'))}${i === 0 ? ' runs' : ''} at ${n}${i === 0 ? ' chunks' : ''}`,
    )
    .join(', ');
}

function renderDocumentQa(doc, ctx) {
  const env = field(ctx, doc, 'environment', 'object', { optional: true }) ?? {};
  const ec = { ...ctx, prefix: 'environment' };
  const out = [
    environment([
      ['date', field(ctx, doc, 'date', 'string', { optional: true })],
      ['node', field(ec, env, 'node', 'string', { optional: true })],
      ['kernel build', kernelCell(ec, env)],
      ['cores', field(ec, env, 'cpus', 'number', { optional: true })],
      ['note', field(ec, env, 'note', 'string', { optional: true })],
    ]),
    '',
    para(
      '**The document-QA loop\u2019s own cost per chunk** (`answerQuestion` with the default options and a model ' +
        'answering at once with outputs computed before the run; the best of ' +
        `${runsPerSize(ctx, doc)}): synthetic documents of ` +
        `${fmt(field(ctx, doc, 'wordsPerParagraph', 'number'))} words a paragraph from ` +
        `${fmt(field(ctx, doc, 'vocabulary', 'number'))} made-up words, asked the question below; ` +
        `in \u201csparse evidence\u201d every ${fmt(field(ctx, doc, 'evidenceEvery', 'number'))}th paragraph answers it, ` +
        'in \u201cno evidence\u201d none does. ms a chunk = (wall \u2212 time inside the model) \u00f7 chunks read:',
    ),
    '',
    `Question: ${field(ctx, doc, 'question', 'string')}`,
    '',
    table(
      DOCUMENT_QA_COLUMNS.map(([header]) => header),
      rows(ctx, doc, 'rows').map(({ item: r, ctx: c }) =>
        DOCUMENT_QA_COLUMNS.map(([, key, kind]) => {
          const v = field(c, r, key, kind === 'string?' ? 'string' : kind, { optional: kind === 'string?' });
          if (kind === 'boolean') return v ? 'yes' : 'NO';
          return kind === 'number' ? fmt(v) : (v ?? '\u2014');
        }),
      ),
    ),
  ];
  return out.join('\n');
}

function renderRepeatedCalls(doc, ctx) {
  const env = field(ctx, doc, 'environment', 'object');
  const ec = { ...ctx, prefix: 'environment' };
  const out = [
    environment([
      ['date', field(ctx, doc, 'date', 'string', { optional: true })],
      ['node', field(ec, env, 'node', 'string', { optional: true })],
      ['kernel build', field(ec, env, 'kernels', 'string', { optional: true })],
      ['cpu', field(ec, env, 'cpu', 'string', { optional: true })],
      ['load average before', list(field(ec, env, 'loadAverageBefore', 'array', { optional: true }))],
      ['load average after', list(field(ec, env, 'loadAverageAfter', 'array', { optional: true }))],
    ]),
    '',
  ];
  const products = doc.products;
  if (typeof products === 'string') out.push(para(`Products: ${products}.`), '');
  else {
    const pc = { ...ctx, prefix: 'products' };
    const row = (key, name) => {
      const r = field(pc, products, key, 'object');
      const c = { ...pc, prefix: `products.${key}` };
      return [
        name,
        fmt(field(c, r, 'oursMsPerProduct', 'number')),
        fmt(field(c, r, 'numpyMsPerProduct', 'number')),
        times(field(c, r, 'oursOverNumpyWall', 'number')),
        times(field(c, r, 'oursOverNumpyCpuTime', 'number')),
        range(c, r, 'oursOverNumpyRange'),
      ];
    };
    out.push(
      para(
        `**A map evaluated at a point**, y = W·x with W ${field(pc, products, 'size', 'string')}, ` +
          `${fmt(field(pc, products, 'productsPerTiming', 'number'))} products per timing, against numpy's \`W @ x\` ` +
          `(numpy ${field(pc, products, 'numpy', 'string')}, one thread) in alternating rounds; ratio = median of the ` +
          `per-round ratios. Target: the resident product <= 2× numpy — ` +
          `${field(pc, products, 'met', 'boolean') ? 'met' : 'NOT met'}.`,
      ),
      '',
      table(
        ['path', 'ms a product', 'numpy ms', 'ours ÷ numpy (wall)', '(CPU)', 'per-round range'],
        [row('resident', '`residentMatrix(W).times(x)`'), row('gemmPerCall', '`gemm(W, x)` per call')],
      ),
      '',
    );
  }
  const cmp = doc.compare;
  if (typeof cmp === 'string') out.push(para(`compare: ${cmp}.`));
  else {
    const cc = { ...ctx, prefix: 'compare' };
    out.push(
      para(
        `**\`ordergap compare\`** on \`${field(cc, cmp, 'samples', 'string')}\` with ${field(cc, cmp, 'rules', 'string')}: ` +
          `the command's wall time ${fmt(field(cc, cmp, 'cliWallMedianMs', 'number', { optional: true }))} ms ` +
          `(median; ${field(cc, cmp, 'cliNote', 'string')}), the library's \`compareReport\` ` +
          `${fmt(field(cc, cmp, 'libraryFirstCallCpuMs', 'number'))} ms of CPU on its first call and ` +
          `${fmt(field(cc, cmp, 'libraryWarmCpuMedianMs', 'number'))} ms warm. Target: the command <= 1 s — ` +
          `${field(cc, cmp, 'met', 'boolean') ? 'met' : 'NOT met'}.`,
      ),
    );
  }
  return out.join('\n');
}

function renderThreads(doc, ctx) {
  const env = field(ctx, doc, 'environment', 'object');
  const ec = { ...ctx, prefix: 'environment' };
  const [rows_, cols] = field(ctx, doc, 'gramShape', 'array');
  const out = [
    environment([
      ['node', field(ec, env, 'node', 'string', { optional: true })],
      ['kernel build', field(ec, env, 'kernels', 'string', { optional: true })],
      ['cores', field(ec, env, 'cores', 'number', { optional: true })],
    ]),
    '',
    para(
      `**\`--threads auto\` against one thread** (median of ${fmt(field(ctx, doc, 'rounds', 'number'))} alternating ` +
        `rounds, wall time) on the Gramian ${fmt(rows_)}×${fmt(cols)} and the batched FD Jacobian at n = ` +
        `${fmt(field(ctx, doc, 'fdJacobianN', 'number'))}, with the other core idle and with a spinning process on it. ` +
        `${field(ctx, doc, 'note', 'string')}. Targets: >= ${fmt(field({ ...ctx, prefix: 'targets' }, doc.targets, 'idleSpeedupAtLeast', 'number'))}× ` +
        `idle, no more than 10% slower busy.`,
    ),
    '',
    table(
      ['other core', 'auto chose', 'probe ratio', 'start ms', 'Gramian speedup', 'FD Jacobian speedup', 'load before'],
      rows(ctx, doc, 'scenarios').map(({ item: r, ctx: c }) => {
        const d = field(c, r, 'decision', 'object');
        const dc = { ...c, prefix: `${c.prefix}.decision` };
        return [
          field(c, r, 'scenario', 'string'),
          `${fmt(field(dc, d, 'threads', 'number'))} thread(s)`,
          `${fmt(field(dc, d, 'probeRatio', 'number'))} (keeps 2 from ${fmt(field(dc, d, 'threshold', 'number'))})`,
          fmt(field(c, r, 'autoStartMs', 'number')),
          times(field({ ...c, prefix: `${c.prefix}.gram` }, r.gram, 'speedup', 'number')),
          times(field({ ...c, prefix: `${c.prefix}.fdJacobian` }, r.fdJacobian, 'speedup', 'number')),
          list(field(c, r, 'loadAverageBefore', 'array', { optional: true })),
        ];
      }),
    ),
  ];
  return out.join('\n');
}

/** The benchmarks the page covers, in page order: results file, title, the script that writes it. */
const BENCHMARKS = [
  { file: 'linalg.json', title: 'Linear algebra', script: 'bench/linalg.ts', render: renderLinalg },
  {
    file: 'linalg-node22.json',
    title: 'Linear algebra on Node 22',
    script: 'bench/linalg.ts (run by Node 22)',
    render: renderLinalg,
  },
  {
    file: 'repeated-calls.json',
    title: 'Repeated small calls',
    script: 'bench/repeated-calls.ts',
    render: renderRepeatedCalls,
  },
  { file: 'threads.json', title: 'Threads by request', script: 'bench/threads.ts', render: renderThreads },
  {
    file: 'threads-node22.json',
    title: 'Threads by request on Node 22',
    script: 'bench/threads.ts (run by Node 22)',
    render: renderThreads,
  },
  {
    file: 'repeated-calls-node22.json',
    title: 'Repeated small calls on Node 22',
    script: 'bench/repeated-calls.ts (run by Node 22)',
    render: renderRepeatedCalls,
  },
  { file: 'certify.json', title: 'Certification', script: 'bench/certify.ts', render: renderCertify },
  {
    file: 'certify-node22.json',
    title: 'Certification on Node 22',
    script: 'bench/certify.ts (run by Node 22)',
    render: renderCertify,
  },
  { file: 'proof.json', title: 'Proofs by enclosure', script: 'bench/proof.ts', render: renderProof },
  {
    file: 'ordergap-nmax.json',
    title: 'The order-gap at large Nmax',
    script: 'bench/ordergap-nmax.ts',
    render: renderOrderGapNmax,
  },
  {
    file: 'stopping.json',
    title: 'Stopping rules on real samples',
    script: 'bench/stopping.ts',
    render: renderStopping,
  },
  { file: 'coverage.json', title: 'Coverage-aware stopping', script: 'bench/coverage.ts', render: renderCoverage },
  {
    file: 'ordergap-run.json',
    title: 'Whole runs at large Nmax',
    script: 'bench/ordergap-run.ts',
    render: renderOrderGapRun,
  },
  {
    file: 'ordergap-run-node22.json',
    title: 'Whole runs at large Nmax on Node 22',
    script: 'bench/ordergap-run.ts (run by Node 22)',
    render: renderOrderGapRun,
  },
  {
    file: 'document-qa.json',
    title: 'The document-QA loop',
    script: 'bench/document-qa.ts',
    render: renderDocumentQa,
  },
];

function readResults(dir, name) {
  const path = resolve(dir, name);
  const file = shown(path);
  if (!existsSync(path)) throw new ResultsError(file, 'missing (run `npm run bench` to write it)');
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ResultsError(file, `cannot be read (${e.code ?? e.message})`);
  }
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ResultsError(file, `is not valid JSON (${e.message.split('\n')[0]})`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ResultsError(file, 'must hold a JSON object');
  }
  return { doc, ctx: { file, prefix: '' } };
}

/** The whole page as a string; throws ResultsError naming the first bad file. */
export function generate(resultsDir) {
  if (!existsSync(resultsDir)) throw new ResultsError(shown(resultsDir), 'results folder is missing');
  const sections = BENCHMARKS.map(({ file, title, script, render }) => {
    const { doc, ctx } = readResults(resultsDir, file);
    return [`## ${title}`, '', `\`${script}\` → \`${ctx.file}\``, '', render(doc, ctx)].join('\n');
  });
  const known = new Set(BENCHMARKS.map((b) => b.file));
  const others = readdirSync(resultsDir)
    .filter((f) => f.endsWith('.json') && !known.has(f))
    .sort();
  const dir = shown(resultsDir);
  const page = [
    '# Benchmarks',
    '',
    `Generated by \`node scripts/bench-table.mjs\` from \`${dir}/*.json\`: do not edit by hand.`,
    '',
    para(
      'Regenerate it with `npm run bench:table`; `npm run bench` rewrites the JSON and then this page. ' +
        'Every ratio compares timings taken in the same run. The figures hold for the machine in the ' +
        'environment table of each section and vary with the host; the reference pages (docs/linalg.md, ' +
        'docs/certify.md, docs/graph.md) say what each routine computes and how accurately.',
    ),
    '',
    ...sections.flatMap((s) => [s, '']),
  ];
  if (others.length > 0) {
    page.push(para(`Other results files without a table here: ${others.map((f) => `\`${f}\``).join(', ')}.`), '');
  }
  return page.join('\n');
}

function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(
      `bench-table: ${e.message} (usage: node scripts/bench-table.mjs [--results DIR] [--out FILE])\n`,
    );
    process.exitCode = 2;
    return;
  }
  if (opts.help) {
    process.stdout.write('usage: node scripts/bench-table.mjs [--results DIR] [--out FILE]\n');
    return;
  }
  let page;
  try {
    page = generate(opts.results);
  } catch (e) {
    if (!(e instanceof ResultsError)) throw e;
    process.stderr.write(`bench-table: ${e.message}\n`);
    process.exitCode = 1;
    return;
  }
  writeFileSync(opts.out, page);
  process.stdout.write(`bench-table: wrote ${shown(opts.out)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
