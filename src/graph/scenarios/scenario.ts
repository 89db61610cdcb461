/**
 * A scenario: a graph, an evidence pool that extends it (claims, candidate answers and open
 * sub-questions its items add get slots reserved from the start), the layout that holds both, the
 * operator parameters, the start state θ0 = φ(graph) and run defaults. The default scenario
 * ships in examples/scenario/ (graph.json, evidence.json).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ArgumentError } from '../../util/errors.js';
import { compileItem, parseEvidencePool, reservedNodes, type CompiledEvidence, type EvidencePool } from './evidence.js';
import { createLayout, embed, type Layout } from '../model/layout.js';
import type { EpistemicGraph } from '../model/model.js';
import {
  confidenceLipschitzBound,
  resolveParams,
  type GraphOperatorParams,
  type LipschitzBound,
} from '../operators/params.js';
import { parseGraph, readJsonFile } from '../model/schema.js';
import { operatorShape, type OperatorShape } from '../model/shape.js';
import type { RunParams } from '../../system/runParams.js';

/** Everything needed to run the reference operators on one problem. */
export interface Scenario {
  readonly graph: EpistemicGraph;
  readonly pool: EvidencePool;
  readonly layout: Layout;
  readonly shape: OperatorShape;
  readonly params: GraphOperatorParams;
  readonly items: readonly CompiledEvidence[];
  readonly itemById: ReadonlyMap<string, CompiledEvidence>;
  /** θ0 = φ(graph). */
  readonly theta0: Float64Array;
  /** Algorithm 1's parameters: the evidence file's `run`, completed by {@link GRAPH_RUN_DEFAULTS}. */
  readonly run: RunParams;
  /** The analytic Lipschitz bound of Q's confidence update for these parameters and layout. */
  readonly bound: LipschitzBound;
}

/** Options of {@link createScenario}. */
export interface ScenarioOptions {
  /** Operator parameter overrides (on top of the evidence file's `operators`). */
  params?: Partial<GraphOperatorParams>;
  /** Refuse parameters whose analytic bound is >= 1 (default true). */
  requireContraction?: boolean;
}

/**
 * The reference graph's run parameters where an evidence file sets none (and of the synthetic
 * graphs and an agent's scenarios): ε = 0.01, w = 3, Tmax = 100, seed 0.
 */
export const GRAPH_RUN_DEFAULTS: RunParams = Object.freeze({ epsilon: 0.01, window: 3, maxSteps: 100, seed: 0 });

/**
 * Builds a scenario from a graph document and an evidence document (both validated whole
 * before anything is built).
 * @throws {GraphFormatError} either document is invalid (JSON paths `graph...`, `evidence...`);
 *   {@link ArgumentError} bad parameters, capacity exceeded by the nodes the pool adds, or a bound >= 1.
 */
export function createScenario(graphDoc: unknown, evidenceDoc: unknown, options: ScenarioOptions = {}): Scenario {
  const graph = parseGraph(graphDoc);
  const pool = parseEvidencePool(evidenceDoc, graph);
  const params = resolveParams({ ...(pool.operators as Partial<GraphOperatorParams>), ...(options.params ?? {}) });
  const layout = createLayout(graph, reservedNodes(pool));
  const shape = operatorShape(layout, params.mergeDims);
  const bound = confidenceLipschitzBound(params, shape.maxAnswersPerQuestion);
  if ((options.requireContraction ?? true) && !(bound.modulus < 1))
    throw new ArgumentError(
      'params',
      bound.modulus,
      `the analytic Lipschitz bound of Q's confidence update is >= 1 (not a certified contraction); lower support/contradict/require/resolve/sharpen or raise the temperatures`,
    );
  const items = pool.items.map((it) => compileItem(it, layout, pool.attributeStrength));
  return Object.freeze({
    graph,
    pool,
    layout,
    shape,
    params,
    items: Object.freeze(items),
    itemById: new Map(items.map((it) => [it.id, it])),
    theta0: embed(graph, layout),
    run: { ...GRAPH_RUN_DEFAULTS, ...pool.run },
    bound,
  });
}

/** Reads a scenario from a graph JSON file and an evidence JSON file. */
export async function loadScenarioFiles(
  graphFile: string,
  evidenceFile: string,
  options: ScenarioOptions = {},
): Promise<Scenario> {
  const [g, e] = await Promise.all([readJsonFile('--graph', graphFile), readJsonFile('--evidence', evidenceFile)]);
  return createScenario(g, e, options);
}

/** Paths of the default scenario's files (examples/scenario/ in the package). */
export const DEFAULT_SCENARIO_FILES = Object.freeze({
  graph: fileURLToPath(new URL('../../../examples/scenario/graph.json', import.meta.url)),
  evidence: fileURLToPath(new URL('../../../examples/scenario/evidence.json', import.meta.url)),
});

/** The default scenario (examples/scenario/), read synchronously. */
export function defaultScenario(options: ScenarioOptions = {}): Scenario {
  const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as unknown;
  return createScenario(read(DEFAULT_SCENARIO_FILES.graph), read(DEFAULT_SCENARIO_FILES.evidence), options);
}
