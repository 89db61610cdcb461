// The fuzz budget and its bookkeeping. `npm test` runs the short budget with a fixed seed (the
// same cases every time); `npm run fuzz` (FUZZ_BUDGET=long) runs many more cases from a fresh
// seed. Every property prints one line with its seed when it ends, passed or failed
// (`fuzz: {"property", "seed", "cases", "failed", "budget"}`): FUZZ_SEED=<seed> replays the
// property; a failure also prints fast-check's path, and FUZZ_SEED=<seed> FUZZ_PATH=<path>
// replays exactly the failing case.
import { appendFileSync } from 'node:fs';
import type { Parameters } from 'fast-check';

/** short (npm test) or long (npm run fuzz). */
export const LONG = process.env['FUZZ_BUDGET'] === 'long';

/** Timeout of one property (all its cases): 60 s for the short budget, 40 min for the long one. */
export const TEST_TIMEOUT = LONG ? 40 * 60_000 : 60_000;

/** The limits every CLI case is held to (see docs/cli.md, "Limits"). */
export const LIMITS = {
  /** Wall time of one in-process CLI invocation. */
  caseMs: 30_000,
  /** Resident set of the test process after any case. */
  rssBytes: 2 * 2 ** 30,
  /** Memory the commands may plan for (ORDERGAP_MEMORY_LIMIT during the fuzz run). */
  memoryLimitBytes: 256 * 2 ** 20,
} as const;

const fixedSeed = 20261201;
/** The seed of every property of this run: FUZZ_SEED, else fixed (short budget) or fresh (long). */
export const seed =
  process.env['FUZZ_SEED'] !== undefined ? Number(process.env['FUZZ_SEED']) : LONG ? Date.now() % 2 ** 31 : fixedSeed;

/** Tally of cases per property (printed, and appended to FUZZ_REPORT as JSON lines if set). */
const tally = new Map<string, number>();

/** fast-check parameters for a property: `short` runs in npm test, `long` in npm run fuzz. */
export function budget(name: string, short: number, long: number): Parameters<unknown> {
  const numRuns = LONG ? long : short;
  const path = process.env['FUZZ_PATH'];
  return {
    seed,
    numRuns,
    ...(path !== undefined ? { path } : {}),
    endOnFailure: true,
    verbose: 1,
    reporter: (details) => {
      tally.set(name, details.numRuns);
      const line = {
        property: name,
        seed,
        cases: details.numRuns,
        failed: details.failed,
        budget: LONG ? 'long' : 'short',
      };
      console.log(`fuzz: ${JSON.stringify(line)}`);
      if (process.env['FUZZ_REPORT']) appendFileSync(process.env['FUZZ_REPORT'], JSON.stringify(line) + '\n');
      if (details.failed) {
        throw new Error(
          `${name}: failed after ${details.numRuns} case(s); replay with FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath ?? ''}\n` +
            `counterexample: ${JSON.stringify(details.counterexample)?.slice(0, 2000)}\n${String(details.errorInstance)}`,
        );
      }
    },
  };
}
