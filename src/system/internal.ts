/**
 * The system names below the public surface, for `ordergap/internal` (src/internal.ts): the
 * readers of coordinate sets, the distribution check, the state check, the run-parameter checks
 * and the capability keys. No stability is promised. Re-exports only.
 */
export {
  checkCoordinateSet,
  coordinateArray,
  coordinateAt,
  coordinateCount,
  coordinateHas,
  isCoordinateRange,
} from './coordinates.js';
export { PROBABILITY_SUM_TOLERANCE, validateDistribution } from './distribution.js';
export { checkState } from './define.js';
export { checkRunParams, RUN_FIELDS, type RunField } from './runParams.js';
export { CAPABILITY_KEYS, checkCapabilities, MOVED_FIELDS } from './capabilities.js';
