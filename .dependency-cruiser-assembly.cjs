/* global module */
/**
 * The AssemblyScript kernels (assembly/, entry assembly/index.ts), checked by `npm run check`: no
 * import cycles (dependency-cruiser parses the kernels as TypeScript). Kernels import only other
 * kernels' files; the layering of src/ is in .dependency-cruiser.cjs.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'no import cycles among the kernels',
      from: {},
      to: { circular: true },
    },
    {
      name: 'kernels-only',
      severity: 'error',
      comment: 'assembly/ imports only assembly/ (the kernels never see the TypeScript library)',
      from: { path: '^assembly/' },
      to: { pathNot: '^assembly/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts'] },
  },
};
