/**
 * The ordergap names below the public surface, for `ordergap/internal` (src/internal.ts): the
 * seeded generator, the loop's option check and its steppers, Ω without validation. No stability
 * is promised. Re-exports only.
 */
export { createRng, sampleIndex, seededNormals, type Rng } from './rng.js';
export { checkLoopOptions } from './run.js';
export { denseStepper, stepSystem, structuredStepper, type Stepper } from './stepper.js';
export { evaluateOrderGapUnchecked } from './orderGap.js';
