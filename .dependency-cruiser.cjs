/* global module */
/**
 * Layering of src/ (docs/ARCHITECTURE.md, "Dependency picture"), checked by `npm run check`.
 * Each area may import only the areas listed for it (and itself); there are no import cycles;
 * nothing imports src/cli; the two entries (src/index.ts, the public surface, and src/internal.ts,
 * the names below it) only re-export and nothing imports them; an area's internal.ts (its
 * non-public names) is read by src/internal.ts alone.
 */
const allowed = {
  util: [],
  wasm: ['util'],
  interval: ['util'],
  blas1: ['wasm', 'util'],
  linalg: ['blas1', 'wasm', 'util'],
  system: ['util'],
  stopping: ['util'],
  ordergap: ['system', 'stopping', 'blas1', 'util'],
  linearize: ['system', 'linalg', 'blas1', 'wasm', 'util'],
  certify: ['interval', 'linearize', 'ordergap', 'system', 'stopping', 'linalg', 'blas1', 'wasm', 'util'],
  coverageStop: [
    'certify',
    'interval',
    'linearize',
    'ordergap',
    'system',
    'stopping',
    'linalg',
    'blas1',
    'wasm',
    'util',
  ],
  closedForm: ['system', 'util'],
  proofCheck: ['interval', 'system', 'util'],
  graph: ['ordergap', 'stopping', 'linearize', 'system', 'linalg', 'blas1', 'wasm', 'util'],
  lab: ['ordergap', 'stopping', 'system', 'blas1', 'util'],
  plot: ['util'],
  recursion: ['lab', 'stopping', 'util'],
  adapters: [
    'recursion',
    'coverageStop',
    'graph',
    'certify',
    'ordergap',
    'stopping',
    'linearize',
    'system',
    'linalg',
    'blas1',
    'wasm',
    'util',
  ],
  report: [
    'proofCheck',
    'interval',
    'coverageStop',
    'plot',
    'lab',
    'graph',
    'closedForm',
    'certify',
    'linearize',
    'ordergap',
    'stopping',
    'system',
    'linalg',
    'blas1',
    'util',
    'wasm',
  ],
};
const areas = Object.keys(allowed);

/**
 * The rooms of src/graph (docs/graph.md, "Rooms"): each may import only the rooms listed for it
 * (and itself), never the front door (src/graph/index.ts, src/graph/system.ts), which may
 * import them all. The order model → operators → scenarios → state, linearisation → agent has
 * no cycle.
 */
const graphRooms = {
  model: [],
  operators: ['model'],
  scenarios: ['operators', 'model'],
  state: ['scenarios', 'operators', 'model'],
  linearisation: ['scenarios', 'operators', 'model'],
  agent: ['state', 'scenarios', 'operators', 'model'],
};
const rooms = Object.keys(graphRooms);

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'no import cycles', from: {}, to: { circular: true } },
    {
      name: 'nothing-imports-cli',
      severity: 'error',
      comment: 'src/cli is a shell over the library: it may import the library, nothing imports it',
      from: { pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    ...areas.map((area) => ({
      name: `layer-${area}`,
      severity: 'error',
      comment: `src/${area} may import only ${allowed[area].join(', ') || 'nothing else in src'}`,
      from: { path: `^src/${area}/` },
      to: { path: '^src/', pathNot: [`^src/(${[area, ...allowed[area]].join('|')})/`] },
    })),
    ...rooms.map((room) => ({
      name: `graph-room-${room}`,
      severity: 'error',
      comment: `src/graph/${room} may import only the graph rooms ${graphRooms[room].join(', ') || '(none)'}, not the front door`,
      from: { path: `^src/graph/${room}/` },
      to: { path: '^src/graph/', pathNot: [`^src/graph/(${[room, ...graphRooms[room]].join('|')})/`] },
    })),
    {
      name: 'graph-no-unknown-room',
      severity: 'error',
      comment: 'every file of src/graph is in a declared room, or is the front door (index.ts, system.ts)',
      from: {
        path: '^src/graph/',
        pathNot: [`^src/graph/(${rooms.join('|')})/`, '^src/graph/(index|internal|system)[.]ts$'],
      },
      to: {},
    },
    {
      name: 'nothing-imports-the-entries',
      severity: 'error',
      comment: 'src/index.ts and src/internal.ts are the package entries: they re-export, nothing in src imports them',
      from: { path: '^src/' },
      to: { path: '^src/(index|internal)[.]ts$' },
    },
    {
      name: 'internal-lists-for-the-entry',
      severity: 'error',
      comment: "an area's internal.ts lists its non-public names for src/internal.ts; nothing else reads it",
      from: { path: '^src/', pathNot: ['^src/internal[.]ts$'] },
      to: { path: '^src/[^/]+/internal[.]ts$' },
    },
    {
      name: 'no-unknown-area',
      severity: 'error',
      comment: 'every folder of src/ has a declared layer',
      from: { path: '^src/[^/]+/', pathNot: [`^src/(${[...areas, 'cli'].join('|')})/`] },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
