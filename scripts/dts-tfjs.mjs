// The published declarations must type-check in a consumer project with `skipLibCheck: false`.
// tfjs's own typings do not (tfjs-core's hash_util.d.ts needs a global `Long` that TypeScript 6
// no longer includes by default, and its @webgpu/types clash with TypeScript's DOM lib), so the
// .d.ts files tsc emits must not import them. This step, run after tsc, points every
// `import type * as X from '@tensorflow/tfjs-core'` in dist/**/*.d.ts at dist/tfjs-types.d.ts,
// which declares the tfjs types the API names (`X.Tensor2D`, and `typeof X` as `X.Namespace`)
// as `any`: a consumer passes the real tfjs namespace and tensors, and annotates with tfjs's
// types where it wants them. The sources keep tfjs's real types, so the package's own code is
// checked against them. Fails when a declaration names tfjs in any other way.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = resolve(dirname(fileURLToPath(import.meta.url)), '../dist');
const shim = join(dist, 'tfjs-types.d.ts');
const IMPORT = /^import type \* as (\w+) from '@tensorflow\/tfjs-core';$/m;
// a declaration this script already rewrote (a second run without tsc in between): its names still count
const SHIMMED = /^import type \* as (\w+) from '(?:\.\.?\/)+tfjs-types\.js';$/m;

function* declarations(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* declarations(p);
    else if (e.name.endsWith('.d.ts') && p !== shim) yield p;
  }
}

const names = new Set(['Namespace']);
let rewritten = 0;
for (const file of declarations(dist)) {
  let text = readFileSync(file, 'utf8');
  const m = IMPORT.exec(text);
  const done = m ? null : SHIMMED.exec(text);
  if (done) for (const u of text.matchAll(new RegExp(`\\b${done[1]}\\.(\\w+)`, 'g'))) names.add(u[1]);
  if (m) {
    const ns = m[1];
    let rel = relative(dirname(file), shim)
      .replace(/\\/g, '/')
      .replace(/\.d\.ts$/, '.js');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    text = text.replace(IMPORT, `import type * as ${ns} from '${rel}';`);
    text = text.replace(new RegExp(`typeof ${ns}\\b(?!\\.)`, 'g'), `${ns}.Namespace`);
    for (const u of text.matchAll(new RegExp(`\\b${ns}\\.(\\w+)`, 'g'))) names.add(u[1]);
    writeFileSync(file, text);
    rewritten++;
  }
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  if (/@tensorflow\//.test(code)) {
    console.error(`dts-tfjs: ${relative(dist, file)} names @tensorflow/* outside a namespace import`);
    process.exit(1);
  }
}
const lines = [
  '// The tfjs-core types the package API names, declared as `any` so that the published',
  "// declarations do not load tfjs's typings (see scripts/dts-tfjs.mjs). Pass the real",
  "// `import * as tf from '@tensorflow/tfjs-core'` and its tensors.",
  ...[...names]
    .sort()
    .map((n) => `// eslint-disable-next-line @typescript-eslint/no-explicit-any\nexport type ${n} = any;`),
  '',
];
writeFileSync(shim, lines.join('\n'));
console.log(`dts-tfjs: ${rewritten} declaration file(s) point at tfjs-types.d.ts (${[...names].sort().join(', ')})`);
