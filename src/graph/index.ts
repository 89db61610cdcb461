/**
 * The epistemic state graph (Def. 2.1), its embedding (Def. 2.2), the reference operators
 * (MATH.md §6), the evidence pool, scenarios and the reference-graph operator system.
 * Re-exports only.
 */
export * from './model.js';
export * from './schema.js';
export * from './layout.js';
export * from './shape.js';
export * from './params.js';
export * from './consolidate.js';
export * from './expand.js';
export * from './evidence.js';
export * from './scenario.js';
export * from './system.js';
export * from './describe.js';
export * from './agent.js';
export * from './backend.js';
export * from './tfjs.js';
export * from './orderGap.js';
export * from './synthetic.js';
