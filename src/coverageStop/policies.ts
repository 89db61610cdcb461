/**
 * The coverage policies by name, in a module of their own so that what only needs their names (the
 * command line's option parsing) does not load the stopper and the graph it reads.
 */

/** What happens when a candidate stop is blind. */
export type CoveragePolicy = 'stop' | 'continue' | 'redirect';

/** The policies, in the order reports list them. */
export const COVERAGE_POLICIES: readonly CoveragePolicy[] = Object.freeze(['stop', 'continue', 'redirect']);
