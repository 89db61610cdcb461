import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  GRAPH_RUN_HOST_STATES,
  MAX_TYPED_ARRAY_LENGTH,
  WASM32_MEMORY_BYTES,
  checkGraphMemory,
  checkJsonFileSize,
  checkMatrixMemory,
  formatBytes,
  graphMemory,
  machineMemoryLimit,
  requireMemory,
} from '../../src/util/resources.js';
import { embeddingDimension } from '../../src/graph/model/layout.js';
import { nullSpace } from '../../src/linalg/api.js';
import {
  checkOutputFile,
  checkOutputFolder,
  destinationFlagOf,
  resetDestinations,
} from '../../src/util/destinations.js';
import { temporaryPathFor } from '../../src/util/atomicWrite.js';

const GiB = 2 ** 30;

describe('memory estimates', () => {
  it('the graph estimate counts states of d = (k+1)·Nmax + 3·Nmax² f64 (the layout’s own d)', () => {
    for (const [k, caps] of [
      [4, { claims: 18, answers: 5, questions: 3 }],
      [1, { claims: 0, answers: 0, questions: 1 }],
      [16, { claims: 2000, answers: 40, questions: 10 }],
    ] as const) {
      const nmax = caps.claims + caps.answers + caps.questions;
      const d = embeddingDimension(k, nmax);
      const e = graphMemory(k, caps);
      expect(e.largestArray).toBe(d);
      expect(e.hostBytes).toBe(GRAPH_RUN_HOST_STATES * 8 * d);
      expect(e.wasmBytes).toBeGreaterThan(8 * d);
      expect(e.wasmBytes - 8 * d).toBe(8 * (k + 21) * nmax);
    }
  });

  it('refuses beyond a typed array, beyond wasm32 and beyond the machine, in that order, naming the argument', () => {
    const big = { bytes: 1e18, source: 'test' };
    expect(() =>
      requireMemory('x', 's', { hostBytes: 0, wasmBytes: 0, largestArray: MAX_TYPED_ARRAY_LENGTH + 1 }, big),
    ).toThrow(/^x = "s": too large: one array of 4294967297 numbers/);
    expect(() =>
      requireMemory('x', 's', { hostBytes: 0, wasmBytes: WASM32_MEMORY_BYTES + 1, largestArray: 1 }, big),
    ).toThrow(/4 GiB a wasm32 memory/);
    // against a 2 GiB limit: more is refused, exactly the limit is allowed
    const needs = (hostBytes: number) => () =>
      requireMemory('x', 's', { hostBytes, wasmBytes: 0, largestArray: 1 }, { bytes: 2 * GiB, source: 'test' });
    expect(needs(3 * GiB)).toThrow(/would take 3\.00 GiB, more than test \(2\.00 GiB\)/);
    expect(needs(2 * GiB)).not.toThrow();
  });

  it('the largest graph that passes wasm32 is the last whose single state fits 4 GiB', () => {
    // 8·d + 8·(k+21)·Nmax <= 2^32 with k = 4: solve for the boundary Nmax and check both sides
    const k = 4;
    let nmax = 1;
    while (graphMemory(k, { claims: nmax + 1, answers: 0, questions: 0 }).wasmBytes <= WASM32_MEMORY_BYTES) nmax++;
    const limit = { bytes: 1e18, source: 'test' };
    expect(() => checkGraphMemory(k, { claims: nmax, answers: 0, questions: 0 }, limit)).not.toThrow();
    expect(() => checkGraphMemory(k, { claims: nmax + 1, answers: 0, questions: 0 }, limit)).toThrow(
      /^graph\.capacities = /,
    );
    expect(nmax).toBeGreaterThan(13_000);
    expect(nmax).toBeLessThan(13_400);
  });

  it('ORDERGAP_MEMORY_LIMIT overrides the machine and must be a positive number', () => {
    expect(machineMemoryLimit({ ORDERGAP_MEMORY_LIMIT: '1000' })).toEqual({
      bytes: 1000,
      source: 'ORDERGAP_MEMORY_LIMIT',
    });
    expect(() => machineMemoryLimit({ ORDERGAP_MEMORY_LIMIT: 'lots' })).toThrow(/^ORDERGAP_MEMORY_LIMIT = "lots"/);
    expect(machineMemoryLimit({}).bytes).toBeGreaterThan(0);
  });

  it('formatBytes uses binary units with three significant digits', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.50 KiB');
    expect(formatBytes(20.1 * GiB)).toBe('20.1 GiB');
  });

  it('a JSON file beyond V8’s string length is refused before it is read', () => {
    expect(() => checkJsonFileSize('--graph', 'g.json', 2 ** 29)).toThrow(
      /^--graph = "g\.json": too large: 512 MiB, more than/,
    );
    expect(() => checkJsonFileSize('--graph', 'g.json', 1000)).not.toThrow();
  });

  it('a matrix shape holding few values but asking for a huge cols × cols result is refused (nullSpace 0 × 2^40)', () => {
    expect(() => nullSpace(new Float64Array(0), 0, 2 ** 40)).toThrow(/^A = "0 × 1099511627776": too large/);
    expect(() => checkMatrixMemory('A', 1e6, 10, { bytes: 1e9, source: 'test' })).not.toThrow(); // tall: small Gramian
  });
});

describe('destinations', () => {
  const work = mkdtempSync(join(tmpdir(), 'ordergap-dest-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('remembers checked destinations, so a later fs error on one (or on its temporary) names its flag', () => {
    resetDestinations();
    const rec = join(work, 'r.json');
    checkOutputFile('--record', rec);
    checkOutputFolder('--plot', join(work, 'plots/run'));
    expect(destinationFlagOf(rec)).toBe('--record');
    expect(destinationFlagOf(temporaryPathFor(rec))).toBe('--record');
    expect(destinationFlagOf(join(work, 'plots/run/trajectory.svg'))).toBe('--plot');
    expect(destinationFlagOf(join(work, 'other.json'))).toBeUndefined();
    resetDestinations();
    expect(destinationFlagOf(rec)).toBeUndefined();
  });

  it('leaves nothing behind when it probes', () => {
    checkOutputFile('--report', join(work, 'x.html'));
    checkOutputFolder('--plot', join(work, 'new/deeper'));
    writeFileSync(join(work, 'marker'), '');
    expect(readdirSync(work)).toEqual(['marker']);
  });

  it('refuses /dev/null as a file (rename over it would replace the device) and names that are too long', () => {
    expect(() => checkOutputFile('--record', '/dev/null')).toThrow(
      /^--record = "\/dev\/null": exists and is not a regular file/,
    );
    expect(() => checkOutputFile('--record', join(work, 'n'.repeat(250)))).toThrow(/file name is too long/);
    expect(() => checkOutputFolder('--plot', join(work, 'n'.repeat(250)))).toThrow(/folder name is too long/);
  });
});
