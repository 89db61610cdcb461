import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN } from '../util/builtCli.js';

const example = fileURLToPath(new URL('../../examples/systems/linear.mjs', import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, [BIN, 'certify', ...args], { encoding: 'utf8' });

describe('ordergap certify (built CLI)', () => {
  it('closed-form --json: the ARCHITECTURE.md fields; Q is not a contraction; exit 0', () => {
    const r = run('--system', 'closed-form', '--json');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.dim).toBe(2);
    expect(doc.fixedPoint).toMatchObject({ converged: true });
    expect(typeof doc.fixedPoint.residual).toBe('number');
    expect(typeof doc.fixedPoint.iterations).toBe('number');
    expect(doc.contraction[0]!.contractive).toBe(false);
    expect(doc.contraction[0]!.empiricalLowerBound).toBeGreaterThanOrEqual(1 - doc.contraction[0]!.worstPair.slack);
    expect(typeof doc.contraction[0]!.localNorm).toBe('number');
    expect(doc.redundancy.map((x: { evidence: string }) => x.evidence)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    for (const x of doc.redundancy)
      expect(Object.keys(x)).toEqual(expect.arrayContaining(['evidence', 'p', 'residual']));
    for (const s of doc.subspaces)
      expect(Object.keys(s)).toEqual(
        expect.arrayContaining(['name', 'dim', 'lambdaMin', 'lambdaMax', 'tolerance', 'nonDegenerate', 'kernelDim']),
      );
    for (const c of doc.coverage)
      expect(Object.keys(c)).toEqual(expect.arrayContaining(['question', 'covered', 'lambdaMin']));
    expect(doc.jacobian.method).toBe('fd');
    expect(r.stderr).toBe(''); // no progress bar with --json / without a TTY
  });

  it('closed-form, zero-probability variant at the stop: e2 and e3 are flagged as blind', () => {
    const r = run('--system', 'closed-form', '--probabilities', 'e2=0,e3=0', '--at', 'stop', '--seed', '1');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/where Algorithm 1 stopped/);
    expect(r.stdout).toMatch(/blind items \(p = 0\) that would move q: e2, e3/);
  });

  it('a user module (examples/systems/linear.mjs) with autodiff: beliefs degenerate, structure not, beliefs certified', () => {
    const r = run('--system', example, '--jacobian', 'autodiff', '--json');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.jacobian.method).toBe('autodiff');
    expect(doc.jacobian.crossCheck.agree).toBe(true);
    const by = Object.fromEntries(doc.subspaces.map((s: { name: string }) => [s.name, s]));
    expect(by.beliefs.nonDegenerate).toBe(false);
    expect(by.beliefs.kernelDim).toBe(3);
    expect(by.structure.nonDegenerate).toBe(true);
    // λ on s0: only e0 writes it; Σ_e0 e_s0 = −a0·0.3·M[:,0] (see the module), p = 1/3:
    // λ = (1/3)(0.5·0.3)²‖(1, 0, 0.5)‖² = 0.009375 — float32 autodiff: 1e-5 relative.
    expect(Math.abs(by.structure.lambdaMax - 0.009375)).toBeLessThan(1e-7);
    const beliefs = doc.contraction.find((c: { subspace: string }) => c.subspace === 'beliefs');
    expect(beliefs.verdict).toBe('proved');
    expect(doc.contraction[0]!.verdict).toBe('refuted');
  });

  it('the reference graph on the default scenario: confidence block certified, whole space not', () => {
    const r = run('--json', '--samples', '16');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.system).toBe('reference-graph');
    const conf = doc.contraction.find((c: { subspace: string }) => c.subspace === 'confidence');
    expect(conf.verdict).toBe('proved');
    expect(conf.empiricalLowerBound).toBeLessThanOrEqual(conf.analyticBound);
    expect(doc.contraction[0]!.verdict).toBe('refuted');
    expect(doc.subspaces.map((s: { name: string }) => s.name)).toEqual(['confidence', 'footprint']);
    expect(doc.coverage.length).toBeGreaterThan(0);
  });

  it('--graph/--evidence files give the same certification as the default scenario they hold', () => {
    const dir = fileURLToPath(new URL('../../examples/scenario/', import.meta.url));
    const a = JSON.parse(run('--json', '--samples', '4').stdout);
    const b = JSON.parse(
      run('--graph', join(dir, 'graph.json'), '--evidence', join(dir, 'evidence.json'), '--json', '--samples', '4')
        .stdout,
    );
    expect(b.source).toMatch(/graph\.json/);
    expect(b.dim).toBe(a.dim);
    expect(b.subspaces).toEqual(a.subspaces);
  });

  it('--report writes the HTML page as well', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'certify-')), 'r.html');
    const r = run('--system', 'closed-form', '--report', file);
    expect(r.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/closed-form/);
  });

  it('bad flags exit 2 with a message naming them', () => {
    const noTf = join(mkdtempSync(join(tmpdir(), 'certify-')), 'noTf.mjs');
    writeFileSync(
      noTf,
      "export default { name: 'no-tf', dim: 1, consolidate: (t) => t, expand: (_, t) => t, evidence: [{ id: 'e', p: 1 }] };\n",
    );
    for (const args of [
      ['--jacobian', 'magic'],
      ['--subspace', 'nope', '--system', 'closed-form'],
      ['--system', 'closed-form', '--at', '1,2,3'],
      ['--system', noTf, '--jacobian', 'autodiff'],
      ['--probabilities', 'e2=-1'],
      ['--graph', 'x.json'],
      ['--system', 'closed-form', '--report', '/nonexistent-folder/r.html'],
    ]) {
      const r = run(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('--linearization sigma says Σ_e was forced, not "exact DF_e used"', () => {
    const r = run('--system', 'closed-form', '--linearization', 'sigma');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/fails \(Σ_e of Eq\. \(4\) forced by --linearization sigma\)/);
    expect(r.stdout).not.toMatch(/exact DF_e used/);
    expect(run('--system', 'closed-form').stdout).toMatch(/fails \(exact DF_e used\)/);
  });

  it('the tolerance line of each subspace shows its own dimension', () => {
    const r = run('--system', 'closed-form');
    // closed-form decides all (m = 2), confidence and uncertainty (m = 1) over 5 items
    expect(r.stdout).toMatch(/^ {2}all tolerance: .*rows = \d+, m = 2:/m);
    expect(r.stdout).toMatch(/^ {2}confidence tolerance: .*m = 1:/m);
    expect(r.stdout).toMatch(/^ {2}uncertainty tolerance: .*m = 1:/m);
  });

  it('--json carries timings (and their environment) in their own fields; --no-timings leaves them out and two runs are byte-identical', () => {
    const withTimings = JSON.parse(run('--system', 'closed-form', '--json').stdout);
    expect(Object.keys(withTimings.timings)).toEqual(expect.arrayContaining(['fixedPoint', 'contraction', 'columns']));
    const a = run('--system', 'closed-form', '--json', '--no-timings');
    const b = run('--system', 'closed-form', '--json', '--no-timings');
    expect(a.status).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(JSON.parse(a.stdout)).not.toHaveProperty('timings');
    // the timings come with the environment they ran on, and leave with it
    expect(withTimings.environment).toEqual({
      node: process.version,
      kernels: expect.stringMatching(/^(plain|fma)$/),
      threads: { requested: 1, threads: 1, probe: null }, // no --threads: one thread, no probe
    });
    expect(JSON.parse(a.stdout)).not.toHaveProperty('environment');
    const { timings: _t, environment: _e, ...rest } = withTimings;
    expect(JSON.parse(a.stdout)).toEqual(rest);
  });
});
