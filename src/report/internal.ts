/**
 * The report names below the public surface, for `ordergap/internal` (src/internal.ts): the
 * pieces the command reports are built from (the HTML helpers and sections, the plot names and
 * margin points, the system resolver, the coverage comparison). No stability is promised.
 * Re-exports only.
 */
export { certifySections } from './certifyHtml.js';
export { CERTIFY_PLOT_NAMES, coverageMarginPoints, subspaceMarginPoints } from './certifyPlots.js';
export { ALL_RULES, type CompareRule, parseCompareRule, resolveCompareRules, shortLabel } from './compare.js';
export { coverageComparison, renderCoverageText } from './coverage.js';
export { DEMO_PLOT_NAMES, demoPlots } from './demoPlots.js';
export { escapeHtml, inlineSvg } from './html.js';
export { jsonNumber } from './json.js';
export { plotWriter } from './plotWriter.js';
export { renderProofCheck, writeProofCertificate } from './proof.js';
export {
  checkRunSize,
  formatDuration,
  RUN_TIME_LIMIT_MS,
  runCostEstimate,
  RunProgressMeter,
  runProgressText,
  runSizeLimits,
  type RunSizeLimits,
  type RunSizeRequest,
} from './runCost.js';
export { RUN_PLOT_NAMES, runPlots } from './runPlots.js';
export { renderStateSummary } from './runText.js';
export { resolveSystem } from './systems.js';
export { fixed, renderTable } from './table.js';
