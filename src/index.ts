/**
 * ordergap — public entry point. This file only re-exports, name by name; logic lives in the area
 * folders, and the namespaces are the areas' index files (each lists its public names). Every
 * other name (kernels, backends, the structured state's passes, scratch builders) is in its
 * area's internal.ts, reachable through `ordergap/internal` (src/internal.ts), which promises no
 * stability; no name is in both. Call `await init()` once before anything that runs on the WebAssembly kernels.
 */
export { init, isInitialized } from './wasm/module.js';
export { ArgumentError, ArgumentTypeError, isArgumentError } from './util/errors.js';

// the operator contract (docs/ARCHITECTURE.md): a system, its capabilities, its run parameters
export type {
  AnswerSummary,
  CertificationPolicy,
  ConsolidationEngine,
  ContradictionSummary,
  CoordinateRange,
  CoordinateSet,
  DescribeCapability,
  EvidenceDistribution,
  EvidenceWeight,
  JacobianMethod,
  JacobianOperator,
  JacobianStats,
  LinearizationCapability,
  LipschitzDeclaration,
  MergeSummary,
  OperatorSystem,
  OperatorSystemSpec,
  PromotionSummary,
  QuestionSummary,
  SparseVector,
  StateBox,
  StateCapability,
  StateSummary,
  Subspace,
  SystemCapabilities,
  Tf,
  TfConsolidate,
  TfExpand,
  VectorLike,
} from './system/types.js';
export { defineSystem, extendSystem } from './system/define.js';
export { uniformExcept } from './system/distribution.js';
export { coordinateRange } from './system/coordinates.js';
export { registerSystem, getSystem, listSystems, loadSystemModule, type SystemFactory } from './system/registry.js';
export { DEFAULT_RUN, resolveRunParams, type RunOverrides, type RunParams } from './system/runParams.js';

// the order-gap (Eq. 2), the one loop and Algorithm 1 (Sec. 6), the pool check
export { orderGap, evaluateOrderGap, type OrderGapEvaluation } from './ordergap/orderGap.js';
export { run, type BestState, type LoopOptions, type RunResult, type RunStep, type RunStop } from './ordergap/run.js';
export { runRecursive, type AlgorithmRule, type RunOptions } from './ordergap/algorithm1.js';
export { checkPoolAtStop, type PoolCheck, type PoolItemGap } from './ordergap/poolCheck.js';

// the coverage-aware stop (Remark 5.4, Sec. 7.3)
export {
  checkCoverageAtStop,
  type CoverageCheck,
  type CoverageCheckOptions,
  type MovingItem,
  type UncoveredQuestion,
} from './coverageStop/check.js';
export {
  type CheckSite,
  type CoveragePolicy,
  CoverageStopper,
  type CoverageStopperOptions,
  type StopperSnapshot,
  type StopReport,
} from './coverageStop/stopper.js';
export {
  type CandidateStop,
  type CoverageAwareRun,
  type CoverageRunOptions,
  type CoverageStop,
  runCoverageAware,
} from './coverageStop/run.js';
export type { RedirectSteer, TargetQuestion } from './coverageStop/steer.js';

// certification (Sec. 3.1, 5.2–5.4, Prop. 5.2)
export { certify } from './certify/certify.js';
export type { CertificationReport, CertifyOptions, SubspaceReport } from './certify/types.js';
export { findFixedPoint, type FixedPointOptions, type FixedPointResult } from './certify/fixedPoint.js';
export { verifyContraction, type ContractionOptions, type ContractionResult } from './certify/contraction.js';
export { proofCertificate, type ProofCertificate } from './certify/certificate.js';
export { checkProof, type BlockCheck, type ProofCheck } from './proofCheck/checkProof.js';

// the built-in systems
export { closedFormSystem, closedFormOrderGap, SEC92, type ClosedFormParams } from './closedForm/system.js';
export { referenceGraphSystem, syntheticGraphSystem } from './graph/system.js';

// the commands' reports, their renderers and pictures
export { runReport, type RunReport, type RunReportOptions, type RunRow, type RunSetting } from './report/run.js';
export type { RunProgress } from './report/runCost.js';
export { renderRunText } from './report/runText.js';
export { writeRunPlots } from './report/runPlots.js';
export { demoReport, renderDemoText, type DemoReport, type DemoReportOptions, type DemoRow } from './report/demo.js';
export { writeDemoPlots } from './report/demoPlots.js';
export {
  certificateOf,
  certifyReport,
  renderCertifyText,
  type CertifyReport,
  type CertifyRequest,
} from './report/certify.js';
export { checkProofReport, type CheckProofRequest } from './report/proof.js';
export { certifyPlots, writeCertifyPlots } from './report/certifyPlots.js';
export { renderCertifyReport, writeCertifyReport, type CertifyReportInput } from './report/certifyHtml.js';
export { compareReport, renderCompareText, type CompareReport, type CompareReportOptions } from './report/compare.js';
export { renderHtmlReport, renderHtmlTable, formatCell, type HtmlReport, type HtmlTable } from './report/html.js';
export { reportJson } from './report/json.js';
export type { SystemRequest } from './report/systems.js';

// the areas with many names, each one namespace
export * as linalg from './linalg/index.js';
export * as stopping from './stopping/index.js';
export * as graph from './graph/index.js';
export * as linearize from './linearize/index.js';
export * as lab from './lab/index.js';
export * as plot from './plot/index.js';
