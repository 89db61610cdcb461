/**
 * The one wording of a thread decision (src/linalg/threadChoice.ts), for the commands' notes and
 * the HTML report.
 */
import type { ThreadDecision } from '../linalg/threadChoice.js';

/**
 * `2 threads (auto: the probe's two-thread speedup 1.62× ≥ 1.2)`; a count
 * asked for is just `N thread(s)`.
 * @example
 * ```ts
 * threadsText({ requested: 2, threads: 2, probe: null }); // '2 threads'
 * ```
 */
export function threadsText(d: ThreadDecision): string {
  const count = `${d.threads} thread${d.threads === 1 ? '' : 's'}`;
  if (d.requested !== 'auto') return count;
  if (d.probe === null) return `${count} (auto: one core)`;
  const { ratio, threshold } = d.probe;
  return `${count} (auto: the probe's two-thread speedup ${ratio.toFixed(2)}× ${ratio >= threshold ? '≥' : '<'} ${threshold})`;
}
