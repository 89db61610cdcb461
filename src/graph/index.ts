/**
 * The epistemic state graph (Def. 2.1), its embedding (Def. 2.2), the reference operators
 * (docs/graph.md; the paper fixes their semantics, Sec. 3.1 and 7.2), the evidence pool, scenarios and the reference-graph operator system.
 * Re-exports only.
 */
export {
  type Capacities,
  checkConsistency,
  type ConsistencyReport,
  type ConsistencyViolation,
  EDGE_TYPE_RULES,
  EDGE_TYPES,
  type EdgeType,
  edgeTypeFits,
  type EpistemicGraph,
  type GraphEdge,
  type GraphNode,
  nmaxOf,
  NODE_TYPES,
  type NodeType,
} from './model/model.js';
export {
  edgeSchema,
  type FormatIssue,
  GraphFormatError,
  graphSchema,
  graphToJson,
  jsonPath,
  loadGraphFile,
  nodeSchema,
  parseGraph,
  readJsonFile,
  toFormatIssues,
  valueAtPath,
} from './model/schema.js';
export {
  attributeBlock,
  canonicalGraph,
  confidenceBlock,
  confidenceIndex,
  createLayout,
  decode,
  decodeParts,
  graphEntries,
  attributeIndices,
  describeCoordinate,
  edgeBlock,
  edgeIndex,
  edgeTypeIndex,
  embed,
  embeddingDimension,
  type Layout,
  nodeOffset,
  nodeSubspace,
  type ReservedNode,
  type SlotInfo,
  slotOfId,
} from './model/layout.js';
export { operatorShape, type OperatorShape } from './model/shape.js';
export {
  confidenceLipschitzBound,
  DEFAULT_PARAMS,
  type GraphOperatorParams,
  type LipschitzBound,
  resolveParams,
} from './operators/params.js';
export {
  confidenceUpdate,
  consolidateNodes,
  consolidateScratch,
  type ConsolidateScratch,
  updateScratch,
  type UpdateScratch,
  denseEdges,
  type EdgeBlockIndex,
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
export { blendFootprintInPlace, type CompiledItem, expansionResidual, referenceExpand } from './operators/expand.js';
export {
  type CompiledEvidence,
  compileItem,
  ConsolidationSchedule,
  evidenceDistribution,
  type EvidenceItem,
  type EvidencePool,
  type EvidencePoolDocument,
  evidencePoolSchema,
  parseEvidencePool,
  reservedNodes,
} from './scenarios/evidence.js';
export {
  createScenario,
  DEFAULT_SCENARIO_FILES,
  defaultScenario,
  loadScenarioFiles,
  GRAPH_RUN_DEFAULTS,
  type Scenario,
  type ScenarioOptions,
} from './scenarios/scenario.js';
export {
  agentCheckSite,
  footprintUnion,
  questionCoordinates,
  type QuestionDirection,
  type ReferenceGraphExtras,
  type ReferenceGraphFactoryParams,
  type ReferenceGraphOptions,
} from './system.js';
export { describeState, describeStructured } from './state/describe.js';
export { AgentState, type EvidenceInput, type SaveIo, STATE_FORMAT, type StateDocument } from './agent/agent.js';
export { type GraphBackend, graphBackends, referenceGraphBackend, wasmGraphBackend } from './operators/backend.js';
export { consolidateTf, expandTf, type GraphTfMap } from './linearisation/tfjs.js';
export {
  type CscBlock,
  type CsrBlock,
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
  structuredOrderGap,
  structuredResidual,
  structuredStep,
  structuredToDense,
  structuredValue,
} from './state/state.js';
export {
  graphStateCapability,
  syntheticGraphSystem,
  SYNTHETIC_DENSE_LIMIT,
  type SyntheticGraphSystem,
  type SyntheticSystemOptions,
} from './system.js';
export { embedClaim, type Embedder, hashingEmbedder, words } from './agent/embed.js';
export { grownCapacities, layoutWithGrowth, relayout } from './model/grow.js';
export {
  type LlmEvidence,
  llmEvidenceJsonSchema,
  llmEvidenceSchema,
  toEvidenceItem,
  type ToEvidenceOptions,
} from './agent/llmEvidence.js';
export {
  answerAccuracy,
  hiddenTruthScenario,
  type HiddenTruthScenario,
  type HiddenTruthScenarioOptions,
} from './scenarios/hiddenTruthScenario.js';
