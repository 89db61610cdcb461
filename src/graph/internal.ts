/**
 * The graph names below the public surface, for `ordergap/internal` (src/internal.ts): no stability
 * is promised. Re-exports only.
 */
export {
  type Capacities,
  type ConsistencyViolation,
  EDGE_TYPE_RULES,
  EDGE_TYPES,
  edgeTypeFits,
  nmaxOf,
  NODE_TYPES,
} from './model/model.js';
export {
  edgeSchema,
  type FormatIssue,
  graphSchema,
  jsonPath,
  loadGraphFile,
  nodeSchema,
  readJsonFile,
  toFormatIssues,
  valueAtPath,
} from './model/schema.js';
export {
  attributeBlock,
  canonicalGraph,
  confidenceBlock,
  confidenceIndex,
  decodeParts,
  graphEntries,
  attributeIndices,
  describeCoordinate,
  edgeBlock,
  edgeIndex,
  edgeTypeIndex,
  embeddingDimension,
  nodeOffset,
  nodeSubspace,
  type ReservedNode,
  type SlotInfo,
  slotOfId,
} from './model/layout.js';
export { operatorShape, type OperatorShape } from './model/shape.js';
export { resolveParams } from './operators/params.js';
export {
  confidenceUpdate,
  consolidateNodes,
  consolidateScratch,
  type ConsolidateScratch,
  updateScratch,
  type UpdateScratch,
  denseEdges,
  type EdgeBlockIndex,
  type CsrBlock,
  type EdgeRow,
  type EdgeSource,
  mergeClaim,
  mergeClaims,
  referenceConsolidate,
  structureSums,
  type StructureSums,
  weightedSums,
  type WeightedSums,
} from './operators/consolidate.js';
export {
  blendFootprintInPlace,
  type CompiledItem,
  ENTRY_CONFIDENCE,
  entryConfidence,
  entryConfidenceInPlace,
  expansionResidual,
  referenceExpand,
} from './operators/expand.js';
export {
  type CompiledEvidence,
  compileItem,
  ConsolidationSchedule,
  evidenceDistribution,
  type EvidenceItem,
  type EvidencePool,
  evidencePoolSchema,
  parseEvidencePool,
  reservedNodes,
} from './scenarios/evidence.js';
export { DEFAULT_SCENARIO_FILES } from './scenarios/scenario.js';
export {
  footprintUnion,
  questionCoordinates,
  type ReferenceGraphExtras,
  type ReferenceGraphFactoryParams,
  graphStateCapability,
  SYNTHETIC_DENSE_LIMIT,
  type SyntheticSystemOptions,
} from './system.js';
export { describeStructured } from './state/describe.js';
export { type SaveIo, STATE_FORMAT } from './agent/agent.js';
export { type GraphBackend, graphBackends, referenceGraphBackend, wasmGraphBackend } from './operators/backend.js';
export { consolidateTf, expandTf, type GraphTfMap } from './linearisation/tfjs.js';
export {
  type CscBlock,
  csrEdges,
  densify,
  extractCsr,
  graphOrderGap,
  graphOrderGapSparse,
  graphStep,
  type GraphStep,
  stepOver,
  type NodeStep,
  type EdgeWrite,
  expandEdgeWrites,
  type IndexedGraphState,
  orderGapOver,
  type OrderGapRegion,
  type OrderGapReuse,
  orderGapScratch,
  type OrderGapScratch,
  type MergeNear,
  type SparseGraphState,
  withColumns,
} from './operators/orderGap.js';
export {
  syntheticProblem,
  type SyntheticProblem,
  syntheticShape,
  syntheticScenario,
  type SyntheticScenario,
  type SyntheticScenarioOptions,
} from './scenarios/synthetic.js';
export {
  COST_MARGIN,
  syntheticRunCost,
  type SyntheticCostOptions,
  type SyntheticRunCost,
} from './scenarios/syntheticCost.js';
export {
  copyStructured,
  copyStructuredInto,
  decodeStructured,
  embedStructured,
  StructuredGraphState,
  structuredConsolidate,
  structuredEdge,
  structuredEntries,
  structuredExpand,
  structuredFromDense,
  structuredFromEntries,
  structuredFromSparse,
  type BuildProgress,
  structuredOrderGap,
  structuredResidual,
  structuredStep,
  structuredToDense,
  structuredValue,
} from './state/state.js';
export { embedClaim, words } from './agent/embed.js';
export { grownCapacities, layoutWithGrowth, relayout } from './model/grow.js';
export { answerAccuracy, type HiddenTruthScenarioOptions } from './scenarios/hiddenTruthScenario.js';
