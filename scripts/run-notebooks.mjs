#!/usr/bin/env node
// `npm run notebooks`: executes every notebook in notebooks/ headless on the tslab (TypeScript)
// kernel with Debian's jupyter-nbconvert, and fails if any cell errors.
//
//   node scripts/run-notebooks.mjs [--out DIR] [NOTEBOOK.ipynb ...]
//   node scripts/run-notebooks.mjs --setup     (only check jupyter and install tslab; CI runs it
//                                               before the tests)
//
// - The notebooks import the package from dist/ (run `npm run build` first; `npm ci` does).
// - tslab is installed on first use into node_modules/.cache/ordergap-tslab (its own prefix: the
//   TypeScript that tslab bundles must not replace the project's `tsc`), version pinned below.
// - The kernel spec is written into the output folder and found through JUPYTER_PATH, so
//   nothing is registered in the user's Jupyter configuration.
// - Executed notebooks go to DIR/executed (default: a fresh folder under the system temp
//   folder); they are never written back into notebooks/.
// Exit status: 0 all passed; 1 a notebook failed; 2 a prerequisite is missing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const TSLAB_VERSION = '1.0.22';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tslabPrefix = join(root, 'node_modules', '.cache', 'ordergap-tslab');
const tslabBin = process.env.ORDERGAP_TSLAB ?? join(tslabPrefix, 'node_modules', '.bin', 'tslab');
// Seconds one cell may run before nbconvert gives up (the slowest cells certify a scenario).
const CELL_TIMEOUT = 900;

function fail(message, status = 2) {
  process.stderr.write(`run-notebooks: ${message}\n`);
  process.exit(status);
}

function parseArgs(argv) {
  const out = { dir: undefined, notebooks: [], setup: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out') {
      out.dir = argv[++i];
      if (!out.dir) fail('--out needs a folder');
    } else if (a === '--setup') out.setup = true;
    else if (a.startsWith('-')) fail(`unknown option ${a}`);
    else out.notebooks.push(resolve(a));
  }
  if (out.notebooks.length === 0) {
    const dir = join(root, 'notebooks');
    out.notebooks = readdirSync(dir)
      .filter((f) => f.endsWith('.ipynb'))
      .sort()
      .map((f) => join(dir, f));
  }
  for (const nb of out.notebooks) if (!existsSync(nb)) fail(`no such notebook: ${nb}`);
  return out;
}

function findJupyter() {
  const candidates = [process.env.ORDERGAP_JUPYTER, '/usr/bin/jupyter', 'jupyter'].filter(Boolean);
  for (const c of candidates) {
    const r = spawnSync(c, ['nbconvert', '--version'], { encoding: 'utf8' });
    if (r.status === 0) return c;
  }
  return fail(
    'jupyter nbconvert not found (Debian: apt-get install jupyter-nbconvert python3-ipykernel; ' +
      'or set ORDERGAP_JUPYTER to a jupyter executable)',
  );
}

function ensureTslab() {
  if (existsSync(tslabBin)) return tslabBin;
  if (process.env.ORDERGAP_TSLAB) fail(`ORDERGAP_TSLAB=${tslabBin} does not exist`);
  process.stderr.write(`run-notebooks: installing tslab@${TSLAB_VERSION} into ${tslabPrefix}\n`);
  mkdirSync(tslabPrefix, { recursive: true });
  const pkg = join(tslabPrefix, 'package.json');
  if (!existsSync(pkg)) writeFileSync(pkg, JSON.stringify({ name: 'ordergap-tslab-env', private: true }) + '\n');
  const r = spawnSync(
    'npm',
    ['install', '--prefix', tslabPrefix, '--no-audit', '--no-fund', '--save-exact', `tslab@${TSLAB_VERSION}`],
    { stdio: 'inherit' },
  );
  if (r.status !== 0 || !existsSync(tslabBin)) fail(`installing tslab@${TSLAB_VERSION} failed`);
  return tslabBin;
}

/**
 * What went wrong in an executed notebook: every error output, and every stderr stream (tslab
 * reports TypeScript compile errors there), as "cell N: text".
 */
function problemsIn(notebookFile) {
  if (!existsSync(notebookFile)) return [];
  const nb = JSON.parse(readFileSync(notebookFile, 'utf8'));
  const problems = [];
  nb.cells.forEach((cell, i) => {
    for (const o of cell.outputs ?? []) {
      if (o.output_type === 'error') problems.push(`cell ${i + 1}: ${o.ename}: ${o.evalue}`);
      else if (o.output_type === 'stream' && o.name === 'stderr')
        problems.push(`cell ${i + 1} (stderr): ${[o.text].flat().join('').trim()}`);
    }
  });
  return problems;
}

function nbconvert(jupyter, nb, outputDir, env, allowErrors) {
  return spawnSync(
    jupyter,
    [
      'nbconvert',
      '--to',
      'notebook',
      '--execute',
      ...(allowErrors ? ['--allow-errors'] : []),
      '--ExecutePreprocessor.kernel_name=tslab',
      `--ExecutePreprocessor.timeout=${CELL_TIMEOUT}`,
      '--output-dir',
      outputDir,
      nb,
    ],
    { cwd: dirname(nb), env, encoding: 'utf8' },
  );
}

const args = parseArgs(process.argv.slice(2));
const jupyter = findJupyter();
const tslab = ensureTslab();
if (args.setup) {
  process.stdout.write(`run-notebooks: jupyter (${jupyter}) and tslab (${tslab}) are ready\n`);
  process.exit(0);
}
if (!existsSync(join(root, 'dist', 'index.js'))) fail('dist/index.js is missing: run `npm run build` first');

const outDir = args.dir ? resolve(args.dir) : mkdtempSync(join(tmpdir(), 'ordergap-notebooks-'));
const kernelDir = join(outDir, 'jupyter', 'kernels', 'tslab');
const executedDir = join(outDir, 'executed');
mkdirSync(kernelDir, { recursive: true });
mkdirSync(executedDir, { recursive: true });
// What `tslab install --prefix` writes, without needing Python's jupyter_client to write it.
writeFileSync(
  join(kernelDir, 'kernel.json'),
  JSON.stringify({
    argv: [tslab, 'kernel', '--config-path', '{connection_file}'],
    display_name: 'TypeScript',
    language: 'typescript',
  }) + '\n',
);
const env = {
  ...process.env,
  JUPYTER_PATH: join(outDir, 'jupyter'),
  // Jupyter's runtime files (connection files) stay inside the output folder too.
  JUPYTER_RUNTIME_DIR: join(outDir, 'runtime'),
  ORDERGAP_NOTEBOOK_OUT: outDir,
  PYDEVD_DISABLE_FILE_VALIDATION: '1',
};

let passed = 0;
let failed = 0;
for (const nb of args.notebooks) {
  const name = basename(nb);
  const started = Date.now();
  // nbconvert's exit status decides: it is non-zero when any cell's execution reply is an
  // error (a thrown exception, or a TypeScript error tslab refuses to run).
  const r = nbconvert(jupyter, nb, executedDir, env, false);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (r.status === 0) {
    passed++;
    process.stdout.write(`ok    ${name} (${seconds} s)\n`);
    continue;
  }
  failed++;
  process.stdout.write(`FAIL  ${name} (${seconds} s, nbconvert exit ${r.status})\n`);
  const stderr = r.stderr ?? '';
  const at = stderr.indexOf('An error occurred while executing the following cell');
  const excerpt = (at >= 0 ? stderr.slice(at) : stderr.trim().split('\n').slice(-25).join('\n')).trim();
  if (excerpt) process.stdout.write(`      ${excerpt.split('\n').join('\n      ')}\n`);
  // nbconvert writes nothing when a cell fails; run again letting errors through to see the
  // outputs of the failing cell (tslab prints compile errors on the cell's stderr).
  const failedDir = join(outDir, 'failed');
  nbconvert(jupyter, nb, failedDir, env, true);
  for (const p of problemsIn(join(failedDir, name))) process.stdout.write(`      ${p.split('\n').join('\n      ')}\n`);
}
process.stdout.write(`notebooks: ${passed} passed, ${failed} failed (executed copies in ${executedDir})\n`);
process.exit(failed === 0 ? 0 : 1);
