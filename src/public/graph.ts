/**
 * The public `graph` namespace: the epistemic state graph (Def. 2.1) and its embedding φ, φ⁻¹
 * (Def. 2.2), the reference operators' parameters and their contraction bound, scenarios, the
 * states in words, and the agent API (a state that grows as evidence arrives, LLM outputs turned
 * into evidence, where an agent's candidate stop is checked). Re-exports only.
 */
export {
  checkConsistency,
  type ConsistencyReport,
  type EdgeType,
  type EpistemicGraph,
  type GraphEdge,
  type GraphNode,
  type NodeType,
} from '../graph/model/model.js';
export { GraphFormatError, graphToJson, parseGraph } from '../graph/model/schema.js';
export { createLayout, decode, embed, type Layout } from '../graph/model/layout.js';
export {
  confidenceLipschitzBound,
  DEFAULT_PARAMS,
  type GraphOperatorParams,
  type LipschitzBound,
} from '../graph/operators/params.js';
export { type EvidencePoolDocument } from '../graph/scenarios/evidence.js';
export {
  createScenario,
  defaultScenario,
  GRAPH_RUN_DEFAULTS,
  loadScenarioFiles,
  type Scenario,
  type ScenarioOptions,
} from '../graph/scenarios/scenario.js';
export { hiddenTruthScenario, type HiddenTruthScenario } from '../graph/scenarios/hiddenTruthScenario.js';
export { describeState } from '../graph/state/describe.js';
export { AgentState, type EvidenceInput, type StateDocument } from '../graph/agent/agent.js';
export { hashingEmbedder, type Embedder } from '../graph/agent/embed.js';
export {
  type LlmEvidence,
  llmEvidenceJsonSchema,
  llmEvidenceSchema,
  toEvidenceItem,
  type ToEvidenceOptions,
} from '../graph/agent/llmEvidence.js';
export {
  agentCheckSite,
  questionBasis,
  type QuestionDirection,
  type ReferenceGraphOptions,
  type ReferenceGraphSystem,
  type SyntheticGraphSystem,
} from '../graph/system.js';
