/**
 * src/wasm/kernels.generated.ts is generated from asc's raw bindings (build/ordergap.d.ts) by
 * scripts/gen-kernel-types.mjs and committed; these tests regenerate it in memory and compare, and
 * check that init() refuses an instance that does not export what it declares.
 */
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KERNEL_SIGNATURES, checkKernelExports, init } from '../../src/wasm/module.js';

interface Generator {
  DTS_URL: URL;
  OUT_URL: URL;
  generateKernelTypes(dts: string): Promise<string>;
  parseBindings(dts: string): { name: string; params: { name: string; ts: string; as: string }[] }[];
}

const generatorUrl = new URL('../../scripts/gen-kernel-types.mjs', import.meta.url).href;
const loadGenerator = async (): Promise<Generator> => (await import(generatorUrl)) as Generator;

describe('generated kernel types', () => {
  it('src/wasm/kernels.generated.ts is what the script makes of the built build/ordergap.d.ts', async () => {
    const gen = await loadGenerator();
    const expected = await gen.generateKernelTypes(await readFile(gen.DTS_URL, 'utf8'));
    const committed = await readFile(gen.OUT_URL, 'utf8');
    // on failure: run `node scripts/gen-kernel-types.mjs` (or `npm run build:wasm`) and commit the file
    expect(committed).toBe(expected);
  });

  it('every function of the bindings is in KERNEL_SIGNATURES with its parameters, in order', async () => {
    const gen = await loadGenerator();
    const parsed = gen.parseBindings(await readFile(gen.DTS_URL, 'utf8'));
    expect(Object.keys(KERNEL_SIGNATURES)).toEqual(parsed.map((k) => k.name));
    for (const k of parsed) {
      const sig = KERNEL_SIGNATURES[k.name as keyof typeof KERNEL_SIGNATURES];
      expect(sig.params.map(([n, t]) => `${n}:${t}`)).toEqual(k.params.map((p) => `${p.name}:${p.as}`));
    }
    expect(KERNEL_SIGNATURES.dgemm.params[0]).toEqual(['transA', 'bool']);
    expect(KERNEL_SIGNATURES.dsyrkRows.params.at(-1)).toEqual(['ready', 'usize']);
  });

  it('the generator refuses bindings it cannot read, naming the function', async () => {
    const gen = await loadGenerator();
    await expect(gen.generateKernelTypes('export function f(): void;')).rejects.toThrow(/__AdaptedExports/);
    const noType =
      'declare namespace __AdaptedExports {\n/**\n * a/f\n * @param n\n */\nexport function f(n: number): void;\n}';
    await expect(gen.generateKernelTypes(noType)).rejects.toThrow(/f: cannot read the AssemblyScript type/);
  });
});

describe('init checks the instance against the generated signatures', () => {
  const exportsLike = (): Record<string, unknown> => {
    const e: Record<string, unknown> = {};
    for (const [name, sig] of Object.entries(KERNEL_SIGNATURES)) {
      e[name] = new Function(...sig.params.map(([n]) => n), 'return 0');
    }
    return e;
  };

  it('accepts exports with every kernel and its parameter count', () => {
    const e = exportsLike();
    expect(checkKernelExports(e as WebAssembly.Exports, 'x.wasm')).toBe(e);
  });

  it('names every missing export and every parameter-count mismatch', () => {
    const e = exportsLike();
    delete e['dsyrkRows'];
    e['graphMergeClaims'] = 42; // not a function
    e['dgemm'] = (a: number) => a; // 1 parameter instead of 16
    let message = '';
    try {
      checkKernelExports(e as WebAssembly.Exports, 'old.wasm');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^old\.wasm does not export the kernels/);
    expect(message).toMatch(/missing function exports: dsyrkRows, graphMergeClaims;/);
    expect(message).toMatch(/different signatures: dgemm \(1 parameters, expected 16\)/);
    expect(message).toMatch(/npm run build:wasm/);
  });

  it('init() of a module without the kernels fails with that message, and a later init() still works', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ordergap-'));
    try {
      const empty = join(dir, 'empty.wasm');
      await writeFile(empty, Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0)); // an empty module
      await expect(init({ wasm: empty })).rejects.toThrow(/empty\.wasm does not export the kernels.*heapBase, dnrm2/);
      const rt = await init();
      expect(typeof rt.exports.dnrm2).toBe('function');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
