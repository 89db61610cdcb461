import { cpus, loadavg } from 'node:os';

/**
 * Where a benchmark that runs on several Node versions writes its results: `<name>.json` on Node
 * 20 (the version the package's engines start at: the plain kernel build unless run with
 * --experimental-wasm-relaxed-simd), `<name>-node<major>.json` on a later Node (its default, the
 * FMA build), so each kernel build's figures have their own environment table in
 * docs/benchmarks.md.
 */
export function resultsFile(name: string): string {
  const major = Number(process.versions.node.split('.')[0]);
  return major <= 20 ? `${name}.json` : `${name}-node${major}.json`;
}

/**
 * The environment block of a timing benchmark on this shared host: Node's version, the cores, the
 * load average when it is taken, and the note that timings are noisy and only in-process ratios
 * are compared.
 */
export function sharedHostEnvironment(): { node: string; cpus: number; loadavg: number[]; note: string } {
  return {
    node: process.version,
    cpus: cpus().length,
    loadavg: loadavg(),
    note: 'shared 2-core machine with other jobs running: timings are noisy; ratios are measured within one process',
  };
}

/**
 * The exponent b of the least-squares fit y ≈ a·Nmax^b over the rows (log–log regression of
 * `y(row)` on `row.nmax`): how a cost grows with the size.
 */
export function growthExponent<R extends { nmax: number }>(rows: readonly R[], y: (r: R) => number): number {
  const lx = rows.map((r) => Math.log(r.nmax));
  const ly = rows.map((r) => Math.log(y(r)));
  const mx = lx.reduce((a, b) => a + b, 0) / lx.length;
  const my = ly.reduce((a, b) => a + b, 0) / ly.length;
  let num = 0;
  let den = 0;
  lx.forEach((v, i) => {
    num += (v - mx) * (ly[i]! - my);
    den += (v - mx) ** 2;
  });
  return num / den;
}
