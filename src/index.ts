/**
 * ordergap — public entry point. This file only re-exports; logic lives in the area folders.
 * Call `await init()` once before anything that runs on the WebAssembly kernels.
 */
export { init, isInitialized, wasm, type WasmRuntime, type KernelExports } from './wasm/module.js';
export { Arena, F64Block, type ArenaScope, WASM32_MAX_BYTES, WASM_PAGE_BYTES } from './wasm/arena.js';
export * as blas1 from './blas1/index.js';
export * as linalg from './linalg/index.js';
export { ArgumentError, ArgumentTypeError, isArgumentError } from './util/errors.js';
export type {
  EvidenceWeight,
  EvidenceDistribution,
  OperatorSystemSpec,
  OperatorSystem,
  VectorLike,
  SystemCapabilities,
  LinearizationCapability,
  CertificationPolicy,
  ConsolidationEngine,
  LipschitzDeclaration,
  StateBox,
  Subspace,
  DescribeCapability,
  StateSummary,
  AnswerSummary,
  QuestionSummary,
  ContradictionSummary,
  MergeSummary,
  CoordinateRange,
  CoordinateSet,
  StateCapability,
  SparseVector,
  JacobianOperator,
  JacobianMethod,
  JacobianStats,
  Tf,
  TfConsolidate,
  TfExpand,
} from './system/types.js';
export { validateDistribution, uniformExcept, PROBABILITY_SUM_TOLERANCE } from './system/distribution.js';
export { defineSystem, extendSystem, checkState } from './system/define.js';
export {
  coordinateArray,
  coordinateAt,
  coordinateCount,
  coordinateHas,
  coordinateRange,
  isCoordinateRange,
} from './system/coordinates.js';
export { registerSystem, getSystem, listSystems, loadSystemModule, type SystemFactory } from './system/registry.js';
export { orderGap, evaluateOrderGap, type OrderGapEvaluation } from './ordergap/orderGap.js';
export { windowedMean } from './stopping/window.js';
export { createRng, sampleIndex, seededNormals, type Rng } from './ordergap/rng.js';
export { runRecursive, type RunOptions, type AlgorithmRule } from './ordergap/algorithm1.js';
export { run, type LoopOptions, type RunResult, type RunStep, type RunStop, type BestState } from './ordergap/run.js';
export {
  DEFAULT_RUN,
  checkRunParams,
  resolveRunParams,
  type RunParams,
  type RunOverrides,
} from './system/runParams.js';
export { checkPoolAtStop, type PoolCheck, type PoolItemGap } from './ordergap/poolCheck.js';
export {
  checkCoverageAtStop,
  runCoverageAware,
  type CoverageAwareRun,
  type CoverageCheck,
  type CoveragePolicy,
  type CoverageRunOptions,
  CoverageStopper,
  type CoverageStopperOptions,
  type CheckSite,
  type StopReport,
} from './coverageStop/index.js';
export * as coverageStop from './coverageStop/index.js';
export { closedFormSystem, closedFormOrderGap, SEC92, type ClosedFormParams } from './closedForm/system.js';
export * as graph from './graph/index.js';
export {
  referenceGraphSystem,
  syntheticGraphSystem,
  questionBasis,
  type ReferenceGraphSystem,
} from './graph/system.js';
export * as plot from './plot/index.js';
export * as stopping from './stopping/index.js';
export * as lab from './lab/index.js';
export { renderHtmlReport, renderHtmlTable, escapeHtml, formatCell, inlineSvg } from './report/html.js';
export type { HtmlReport, HtmlSection, HtmlBlock, HtmlTable } from './report/html.js';
export {
  renderCertifyReport,
  writeCertifyReport,
  certifySections,
  type CertifyReportInput,
} from './report/certifyHtml.js';
export * as linearize from './linearize/index.js';
export * as certification from './certify/index.js';
export { certify, type CertificationReport, type CertifyOptions, type SubspaceReport } from './certify/certify.js';
export { reportJson } from './report/json.js';
export { runReport, type RunReport, type RunReportOptions, type RunRow, type RunSetting } from './report/run.js';
export { renderRunText } from './report/runText.js';
export { runPlots, writeRunPlots, RUN_PLOT_NAMES } from './report/runPlots.js';
export { demoReport, renderDemoText, type DemoReport, type DemoReportOptions, type DemoRow } from './report/demo.js';
export { demoPlots, writeDemoPlots, DEMO_PLOT_NAMES } from './report/demoPlots.js';
export { certifyReport, renderCertifyText, type CertifyReport, type CertifyRequest } from './report/certify.js';
export {
  certifyPlots,
  writeCertifyPlots,
  subspaceMarginPoints,
  coverageMarginPoints,
  CERTIFY_PLOT_NAMES,
  type CertifyPlotInput,
} from './report/certifyPlots.js';
export { compareReport, renderCompareText, type CompareReport, type CompareReportOptions } from './report/compare.js';
