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
} from './model/model.js';
export { GraphFormatError, graphToJson, parseGraph } from './model/schema.js';
export { createLayout, decode, embed, type Layout } from './model/layout.js';
export {
  confidenceLipschitzBound,
  DEFAULT_PARAMS,
  type GraphOperatorParams,
  type LipschitzBound,
} from './operators/params.js';
export type { EvidencePoolDocument } from './scenarios/evidence.js';
export {
  createScenario,
  defaultScenario,
  GRAPH_RUN_DEFAULTS,
  loadScenarioFiles,
  type Scenario,
  type ScenarioOptions,
} from './scenarios/scenario.js';
export { hiddenTruthScenario, type HiddenTruthScenario } from './scenarios/hiddenTruthScenario.js';
export { describeState } from './state/describe.js';
export { AgentState, type EvidenceInput, type StateDocument } from './agent/agent.js';
export { hashingEmbedder, type Embedder } from './agent/embed.js';
export {
  extractionPrompt,
  type ExtractionPromptOptions,
  type LlmEvidence,
  llmEvidenceJsonSchema,
  llmEvidenceSchema,
  toEvidenceItem,
  type ToEvidenceOptions,
} from './agent/llmEvidence.js';
export {
  agentCheckSite,
  questionBasis,
  type QuestionDirection,
  type ReferenceGraphOptions,
  type ReferenceGraphSystem,
  type SyntheticGraphSystem,
} from './system.js';
