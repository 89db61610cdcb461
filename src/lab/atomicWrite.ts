/** Atomic writes for run records: the package-wide implementation in src/util/atomicWrite.ts. */
export { writeFileAtomic } from '../util/atomicWrite.js';
