import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The package as npm publishes it (`npm pack` of the built tree), installed into a fresh
// consumer project whose dependencies come from this checkout's node_modules (no network), and
// a TypeScript file importing it compiled with skipLibCheck: false — the published .d.ts files
// and everything they import must type-check.
const root = fileURLToPath(new URL('../..', import.meta.url));
const modules = realpathSync(join(root, 'node_modules'));
const work = mkdtempSync(join(tmpdir(), 'ordergap-consumer-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function install(): string {
  // the declarations step once more over its own output (as a second `build:ts` step without tsc
  // would run it): the shim must keep every tfjs name, which the type-check below needs
  execFileSync(process.execPath, [join(root, 'scripts/dts-tfjs.mjs')], { encoding: 'utf8' });
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: root,
    encoding: 'utf8',
  });
  const tarball = join(work, (JSON.parse(out) as Array<{ filename: string }>)[0]!.filename);
  const consumer = join(work, 'consumer');
  const nm = join(consumer, 'node_modules');
  mkdirSync(nm, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', nm]);
  execFileSync('mv', [join(nm, 'package'), join(nm, 'ordergap')]);
  for (const name of readdirSync(modules)) if (name !== 'ordergap') symlinkSync(join(modules, name), join(nm, name));
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  return consumer;
}

describe('the packed package in a consumer project', () => {
  it('type-checks with skipLibCheck: false (no tfjs typings leak through the .d.ts files)', () => {
    const consumer = install();
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          skipLibCheck: false,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          noEmit: true,
          types: ['node'],
        },
        files: ['index.ts'],
      }),
    );
    writeFileSync(
      join(consumer, 'index.ts'),
      [
        "import * as og from 'ordergap';",
        "import type { OperatorSystemSpec, Tf, TfConsolidate } from 'ordergap';",
        'const spec: OperatorSystemSpec = {',
        "  name: 'scalar', dim: 1,",
        '  consolidate: (t) => [0.5 * t[0]!],',
        '  expand: (_e, t) => [t[0]! + 1],',
        "  evidence: [{ id: 'e', p: 1 }],",
        '};',
        'export const system = og.defineSystem(spec);',
        'export const q: TfConsolidate = (tf: Tf, X) => tf.mul(X, 0.5);',
        'export const d: number = system.dim;',
        '',
      ].join('\n'),
    );
    let output = '';
    try {
      execFileSync(process.execPath, [join(modules, 'typescript/bin/tsc'), '-p', consumer], { encoding: 'utf8' });
    } catch (e) {
      output = String((e as { stdout?: string }).stdout ?? e);
    }
    expect(output).toBe('');
  }, 120_000);

  it('ships the MIT LICENSE that package.json names', () => {
    const files = execFileSync('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], {
      cwd: root,
      encoding: 'utf8',
    });
    const list = (JSON.parse(files) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
    expect(list).toContain('LICENSE');
    const license = readFileSync(join(root, 'LICENSE'), 'utf8');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { license: string };
    expect(pkg.license).toBe('MIT');
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} The ordergap authors\n/);
  }, 60_000);
});
