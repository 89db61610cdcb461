import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROBABILITY_SUM_TOLERANCE, uniformExcept, validateDistribution } from '../../src/system/distribution.js';
import { defineSystem } from '../../src/system/define.js';
import { getSystem, listSystems, loadSystemModule, registerSystem } from '../../src/system/registry.js';
import '../../src/closedForm/system.js';

describe('evidence distribution validation', () => {
  it('accepts a distribution summing to 1 within sqrt(eps), rejects beyond', () => {
    expect(
      validateDistribution('P', [
        { id: 'a', p: 0.5 },
        { id: 'b', p: 0.5 + 0.99 * PROBABILITY_SUM_TOLERANCE },
      ]),
    ).toHaveLength(2);
    expect(() =>
      validateDistribution('P', [
        { id: 'a', p: 0.5 },
        { id: 'b', p: 0.5 + 1.01 * PROBABILITY_SUM_TOLERANCE },
      ]),
    ).toThrow(/^P \(sum of p\) = 1\.00000001\d+: probabilities must sum to 1/);
  });
  it('names the offending entry', () => {
    expect(() => validateDistribution('P', [])).toThrow(/^P = an array of length 0/);
    expect(() => validateDistribution('P', [{ id: 'a', p: NaN }])).toThrow(
      /^P\[0\]\.p = NaN: \(evidence "a"\) must be finite/,
    );
    expect(() =>
      validateDistribution('P', [
        { id: 'a', p: 1.5 },
        { id: 'b', p: -0.5 },
      ]),
    ).toThrow(/^P\[1\]\.p = -0.5/);
    expect(() =>
      validateDistribution('P', [
        { id: 'a', p: 0.5 },
        { id: 'a', p: 0.5 },
      ]),
    ).toThrow(/^P\[1\]\.id = "a": is a duplicate/);
    expect(() => validateDistribution('P', [{ id: 'a', p: 0 }])).toThrow(/empty support/);
    expect(() => validateDistribution('P', [{ id: '', p: 1 }])).toThrow(/^P\[0\]\.id = ""/);
  });
  it('uniformExcept spreads the remaining mass', () => {
    expect(uniformExcept(['a', 'b', 'c', 'd'], { a: 0.4, b: 0 }).map((e) => e.p)).toEqual([0.4, 0, 0.3, 0.3]);
    expect(() => uniformExcept(['a'], { z: 0 })).toThrow(/^probabilities.z = 0: names no evidence item/);
  });
});

describe('defineSystem', () => {
  const base = {
    name: 'lin',
    dim: 2,
    consolidate: (t: Float64Array) => [0.5 * t[0]!, 0.5 * t[1]!],
    expand: (_e: string, t: Float64Array) => [t[0]! + 1, t[1]!],
    evidence: [{ id: 'e', p: 1 }],
  };
  it('validates the spec, naming the field', () => {
    expect(() => defineSystem({ ...base, dim: 0 })).toThrow(/^system.dim = 0/);
    expect(() => defineSystem({ ...base, consolidate: 3 as never })).toThrow(/^system.consolidate = 3/);
    expect(() => defineSystem({ ...base, theta0: [1] })).toThrow(/^system.theta0 = Float64Array\(1\)/);
    expect(() => defineSystem({ ...base, subspaces: { w: [0, 2] } })).toThrow(/^system.subspaces.w\[1\] = 2/);
    expect(() => defineSystem({ ...base, questions: { q: [1, 1] } })).toThrow(
      /^system.questions.q\[1\] = 1: is a duplicate/,
    );
    expect(() => defineSystem({ ...base, evidence: [{ id: 'e', p: 0.3 }] })).toThrow(/^system.evidence \(sum of p\)/);
  });
  it('checks operator outputs', () => {
    const bad = defineSystem({ ...base, consolidate: () => [1, NaN] });
    expect(() => bad.consolidate(Float64Array.of(0, 0))).toThrow(/^lin: consolidate\(theta\)\[1\] = NaN/);
    const short = defineSystem({ ...base, expand: () => [1] });
    expect(() => short.expand('e', Float64Array.of(0, 0))).toThrow(/must have length 2/);
    const sys = defineSystem(base);
    expect(() => sys.expand('nope', Float64Array.of(0, 0))).toThrow(/^evidenceId = "nope"/);
    const badDist = defineSystem({ ...base, evidence: () => [{ id: 'e', p: 2 }] });
    expect(() => badDist.evidenceAt(Float64Array.of(0, 0))).toThrow(/sum to 1/);
  });
});

describe('registry and module loading', () => {
  it('lists and builds built-in systems', () => {
    expect(listSystems().map((s) => s.name)).toContain('closed-form');
    expect(getSystem('closed-form').dim).toBe(2);
    expect(() => getSystem('nope')).toThrow(/^system = "nope": is not a built-in system \(known: closed-form/);
    // what a user registers is checked when registered, and what its factory builds when built
    const factory = () => null as never;
    expect(() => registerSystem('', 'x', factory)).toThrow(/^name = "": must be a non-empty string/);
    expect(() => registerSystem('x', 'x', 42 as never)).toThrow(/^factory = 42: must be a function/);
    registerSystem('test-null-factory', 'returns nothing', factory);
    expect(() => getSystem('test-null-factory')).toThrow(
      /^system "test-null-factory": factory\(\) = null: must return an operator system/,
    );
  });
  it('loads a user system from a real ES module file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ordergap-'));
    const file = join(dir, 'sys.mjs');
    writeFileSync(
      file,
      `export default { name: 'user', dim: 1, theta0: [1],
        consolidate: (t) => [0.5 * t[0]], expand: (e, t) => [t[0] + (e === 'a' ? 1 : 0)],
        evidence: [{ id: 'a', p: 0.25 }, { id: 'b', p: 0.75 }] };\n`,
    );
    const sys = await loadSystemModule(file);
    expect(sys.name).toBe('user');
    expect(Array.from(sys.consolidate(Float64Array.of(4)))).toEqual([2]);
    await expect(loadSystemModule(join(dir, 'missing.mjs'))).rejects.toThrow(/^file = ".*missing.mjs": does not exist/);
    const noDefault = join(dir, 'nodefault.mjs');
    writeFileSync(noDefault, 'export const x = 1;\n');
    await expect(loadSystemModule(noDefault)).rejects.toThrow(/has no default export/);
    const badDim = join(dir, 'baddim.mjs');
    writeFileSync(
      badDim,
      "export default { name: 'b', dim: -1, consolidate: (t) => t, expand: (e, t) => t, evidence: [] };\n",
    );
    await expect(loadSystemModule(badDim)).rejects.toThrow(/^system.dim = -1/);
  });
});
