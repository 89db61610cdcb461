// Generators of bad and edge-case inputs: mutations of valid JSON documents, odd flag values,
// odd paths, and operator modules that misbehave in one way each.
import fc from 'fast-check';

/** Values a field may be replaced with: wrong types, NaN and Infinity spelt in JSON, extremes. */
export const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    '',
    'x',
    'NaN',
    'Infinity',
    -1,
    0,
    0.5,
    1,
    1.5,
    2,
    7,
    1e308,
    -1e308,
    5e-324,
    2 ** 31,
    2 ** 53,
    30000,
    100000,
    [],
    {},
    [1, 2, 3],
    [null],
    { id: 'x' },
    'a'.repeat(5000),
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -5, max: 50 }),
  fc.string({ maxLength: 8 }),
);

/** Every path (list of keys) to a value inside `doc`, containers included. */
export function pathsOf(
  doc: unknown,
  prefix: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(doc)) doc.forEach((v, i) => pathsOf(v, [...prefix, i], out));
  else if (doc !== null && typeof doc === 'object')
    for (const [k, v] of Object.entries(doc as Record<string, unknown>)) pathsOf(v, [...prefix, k], out);
  return out;
}

/** A mutation of a JSON document. */
export type Mutation =
  | { kind: 'set'; at: number; value: unknown }
  | { kind: 'delete'; at: number }
  | { kind: 'addKey'; at: number; key: string; value: unknown }
  | { kind: 'duplicate'; at: number }
  | { kind: 'text'; text: string };

/** 1–3 structural mutations, or a replacement of the whole text (truncated, empty, huge, not JSON). */
export function mutation(docText: string): fc.Arbitrary<Mutation[]> {
  const structural = fc.oneof(
    fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: weirdValue }),
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
    fc.record({
      kind: fc.constant('addKey' as const),
      at: fc.nat(),
      key: fc.constantFrom('extra', 'id', '__proto__', 'weight'),
      value: weirdValue,
    }),
    fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
  );
  const text = fc.oneof(
    fc.nat({ max: docText.length }).map((n) => docText.slice(0, n)),
    fc.constantFrom(
      '',
      ' ',
      '\n',
      'null',
      '[]',
      '{}',
      '0',
      '"x"',
      '\uFEFF' + docText,
      docText.replace(/1/g, 'NaN'),
      docText.replace(/0\./g, '1e999*'),
    ),
    fc.constant('[' + Array.from({ length: 200_000 }, () => '0.5').join(',') + ']'),
  );
  return fc.oneof(
    { weight: 4, arbitrary: fc.array(structural, { minLength: 1, maxLength: 3 }) },
    { weight: 1, arbitrary: text.map((t) => [{ kind: 'text' as const, text: t }]) },
  );
}

/** Applies mutations to a copy of `doc`; returns the text to write. */
export function applyMutations(doc: unknown, mutations: readonly Mutation[]): string {
  let d = structuredClone(doc);
  for (const m of mutations) {
    if (m.kind === 'text') return m.text;
    const paths = pathsOf(d);
    const p = paths[m.at % paths.length]!;
    if (p.length === 0) {
      if (m.kind === 'set') d = m.value;
      continue;
    }
    const parent = p.slice(0, -1).reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], d) as Record<
      string | number,
      unknown
    >;
    const key = p[p.length - 1]!;
    if (m.kind === 'set') parent[key] = m.value;
    else if (m.kind === 'delete') {
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
    } else if (m.kind === 'addKey') {
      const target = parent[key];
      if (target !== null && typeof target === 'object' && !Array.isArray(target))
        Object.defineProperty(target, m.key, { value: m.value, enumerable: true, configurable: true, writable: true });
    } else if (m.kind === 'duplicate' && Array.isArray(parent)) parent.push(structuredClone(parent[Number(key)]));
  }
  return JSON.stringify(d);
}

/** Flag values: numbers of every kind, spelt as a user might. */
export const flagValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'NaN',
    'Infinity',
    '-Infinity',
    '-1',
    '0',
    '1',
    '2',
    '3',
    '0.5',
    '2.5',
    '1e400',
    '1e-400',
    '',
    ' ',
    'abc',
    '0x10',
    '1e3',
    '99999999999999999999',
    '-0',
    '4294967296',
  ),
  fc.integer({ min: -3, max: 12 }).map(String),
  fc.double({ noNaN: true }).map(String),
);

/** Paths a user may give for an output: missing folders, files as folders, pseudo file systems, long names. */
export function oddPath(tmp: string): fc.Arbitrary<string> {
  return fc.constantFrom(
    '',
    ' ',
    '/proc/nope',
    '/proc/self',
    '/sys/nope/x',
    '/dev/null',
    '/dev/full',
    '/',
    `${tmp}/missing/deeper/x.svg`,
    `${tmp}/a-file`,
    `${tmp}/a-file/sub`,
    `${tmp}/${'n'.repeat(300)}`,
    `${tmp}/nul\u0000byte`,
    `${tmp}/fresh dir ü`,
    `${tmp}/out.html`,
    `${tmp}/out.svg`,
    '-',
  );
}

/** How one part of a generated operator module misbehaves. */
export interface ModulePlan {
  dim: 'ok' | 'zero' | 'negative' | 'fraction' | 'string' | 'huge';
  consolidate: 'ok' | 'throws' | 'short' | 'nan' | 'mutates' | 'async' | 'promise' | 'object' | 'diverges' | 'missing';
  expand: 'ok' | 'throws' | 'long' | 'infinity' | 'mutates' | 'unknownThrows';
  evidence: 'ok' | 'negative' | 'sumTwo' | 'empty' | 'nan' | 'function' | 'functionBad' | 'notArray';
  theta0: 'ok' | 'short' | 'nan' | 'missing' | 'string';
  subspaces: 'none' | 'ok' | 'outOfRange' | 'duplicate' | 'negative' | 'string';
  exportStyle: 'default' | 'none' | 'named' | 'throwAtLoad' | 'syntax';
}

const planChoices = {
  dim: ['ok', 'zero', 'negative', 'fraction', 'string', 'huge'],
  consolidate: ['ok', 'throws', 'short', 'nan', 'mutates', 'async', 'promise', 'object', 'diverges', 'missing'],
  expand: ['ok', 'throws', 'long', 'infinity', 'mutates', 'unknownThrows'],
  evidence: ['ok', 'negative', 'sumTwo', 'empty', 'nan', 'function', 'functionBad', 'notArray'],
  theta0: ['ok', 'short', 'nan', 'missing', 'string'],
  subspaces: ['none', 'ok', 'outOfRange', 'duplicate', 'negative', 'string'],
  exportStyle: ['default', 'none', 'named', 'throwAtLoad', 'syntax'],
} as const;
const goodPlan: ModulePlan = {
  dim: 'ok',
  consolidate: 'ok',
  expand: 'ok',
  evidence: 'ok',
  theta0: 'ok',
  subspaces: 'ok',
  exportStyle: 'default',
};

/**
 * Module plans: mostly one fault in an otherwise good module (each fault is then reached, not
 * masked by an earlier one), sometimes any combination; θ0 present or not in both.
 */
export const modulePlan: fc.Arbitrary<ModulePlan> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(...(Object.keys(planChoices) as (keyof ModulePlan)[]))
      .chain((field) =>
        fc.tuple(
          fc.constant(field),
          fc.constantFrom(...planChoices[field]),
          fc.constantFrom('ok', 'ok', 'ok', 'missing'),
        ),
      )
      .map(([field, value, theta0]) => ({ ...goodPlan, theta0, [field]: value }) as ModulePlan),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      dim: fc.constantFrom(...planChoices.dim),
      consolidate: fc.constantFrom(...planChoices.consolidate),
      expand: fc.constantFrom(...planChoices.expand),
      evidence: fc.constantFrom(...planChoices.evidence),
      theta0: fc.constantFrom(...planChoices.theta0),
      subspaces: fc.constantFrom(...planChoices.subspaces),
      exportStyle: fc.constantFrom(...planChoices.exportStyle),
    }),
  },
);

/**
 * True when every part of the plan is well-behaved (the module must then certify, exit 0). A
 * diverging Q (`diverges`) is not: its fixed-point iteration overflows, and the command either
 * reports no fixed point (exit 0) or refuses Q's non-finite output naming it (exit 2).
 */
export function planIsValid(p: ModulePlan): boolean {
  return (
    p.dim === 'ok' &&
    p.consolidate === 'ok' &&
    p.expand === 'ok' &&
    (p.evidence === 'ok' || p.evidence === 'function') &&
    p.theta0 === 'ok' && // certify starts from θ0 (without it: exit 2 naming system.theta0)
    (p.subspaces === 'none' || p.subspaces === 'ok') &&
    p.exportStyle === 'default'
  );
}

/** The text of an operator module (d = 3) following `plan`. */
export function moduleText(p: ModulePlan): string {
  const dim = { ok: '3', zero: '0', negative: '-3', fraction: '2.5', string: "'3'", huge: '1e12' }[p.dim];
  const consolidate = {
    ok: '(t) => [0.5 * t[0], 0.5 * t[1] + 0.1 * t[2], t[2]]',
    throws: "(t) => { throw new Error('Q failed'); }",
    short: '(t) => [t[0]]',
    nan: '(t) => [NaN, t[1], t[2]]',
    mutates: '(t) => { t[0] = 0.5 * t[0]; return t; }',
    async: 'async (t) => t',
    promise: '(t) => Promise.resolve(t)',
    object: '(t) => ({ 0: t[0] })',
    diverges: '(t) => [2 * t[0] + 1, t[1], t[2]]',
    missing: 'undefined',
  }[p.consolidate];
  const expand = {
    ok: "(e, t) => e === 'a' ? [t[0], 0.5 * t[1] + 0.5, t[2]] : [t[0], t[1], 0.5 * t[2] + 0.25]",
    throws: "(e, t) => { throw new RangeError('P failed for ' + e); }",
    long: '(e, t) => [...t, 1]',
    infinity: '(e, t) => [Infinity, t[1], t[2]]',
    mutates: '(e, t) => { t[1] = 1; return t; }',
    unknownThrows: "(e, t) => { if (e !== 'zzz') throw new Error('unknown ' + e); return t; }",
  }[p.expand];
  const evidence = {
    ok: "[{ id: 'a', p: 0.5 }, { id: 'b', p: 0.5 }]",
    negative: "[{ id: 'a', p: -0.5 }, { id: 'b', p: 1.5 }]",
    sumTwo: "[{ id: 'a', p: 1 }, { id: 'b', p: 1 }]",
    empty: '[]',
    nan: "[{ id: 'a', p: NaN }, { id: 'b', p: 0.5 }]",
    function: "(t) => [{ id: 'a', p: 0.5 }, { id: 'b', p: 0.5 }]",
    functionBad: "(t) => [{ id: 'a', p: t[0] }]",
    notArray: "'a,b'",
  }[p.evidence];
  const theta0 = {
    ok: '[0.2, 0.4, 0.6]',
    short: '[0.2]',
    nan: '[0.2, NaN, 0.6]',
    missing: 'undefined',
    string: "'0.2,0.4,0.6'",
  }[p.theta0];
  const subspaces = {
    none: 'undefined',
    ok: '{ head: [0, 1], tail: [2] }',
    outOfRange: '{ head: [0, 3] }',
    duplicate: '{ head: [1, 1] }',
    negative: '{ head: [-1] }',
    string: "{ head: '0,1' }",
  }[p.subspaces];
  const spec = `{ name: 'fuzzed', dim: ${dim}, consolidate: ${consolidate}, expand: ${expand}, evidence: ${evidence}, theta0: ${theta0}, subspaces: ${subspaces} }`;
  switch (p.exportStyle) {
    case 'default':
      return `const spec = ${spec};\nfor (const k of Object.keys(spec)) if (spec[k] === undefined) delete spec[k];\nexport default spec;\n`;
    case 'none':
      return `export const spec = ${spec};\n`;
    case 'named':
      return `export const system = ${spec};\nexport default undefined;\n`;
    case 'throwAtLoad':
      return `const spec = ${spec};\nthrow new Error('cannot start');\nexport default spec;\n`;
    case 'syntax':
      return `const spec = ${spec};\nexport default { ...spec,\n`;
  }
}
