// Iteration caps of the iterative kernels. The defaults are LAPACK's. setIterationCaps lowers
// them so that a test can make a method give up and check the fallback that follows: the
// secular solver (dlaed4), dqds (dlasq2) and QL (dsterf, dsteqr) converge on every input seen,
// so their fallbacks are reached no other way. src/linalg/iterationCaps.ts sets these and the
// TypeScript backend's together.

/** dlaed4's MAXIT: iterations of one secular equation (the divide-and-conquer merges). */
export let capSecular: i32 = 30;
/** dlasq2's NBIG = 100·n: dqds passes per value of a segment. */
export let capDqdsPerValue: i32 = 100;
/** dsterf's and dsteqr's MAXIT: QL iterations per eigenvalue. */
export let capQlPerValue: i32 = 30;

/** Sets the three caps; a negative value restores that cap's default. */
export function setIterationCaps(secular: i32, dqdsPerValue: i32, qlPerValue: i32): void {
  capSecular = secular < 0 ? 30 : secular;
  capDqdsPerValue = dqdsPerValue < 0 ? 100 : dqdsPerValue;
  capQlPerValue = qlPerValue < 0 ? 30 : qlPerValue;
}
