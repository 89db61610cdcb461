/**
 * The system a command runs on, from the command's terms: a built-in name (`reference-graph`,
 * `closed-form`, …), an operator module file (`.mjs`, the contract of docs/ARCHITECTURE.md), the
 * reference graph on graph and evidence files, or a synthetic reference graph of a given size.
 * `ordergap run` and `ordergap certify` resolve their `--system` here, so both accept the same
 * systems and refuse the same combinations with the same messages.
 */
import { existsSync } from 'node:fs';
import { referenceGraphSystem, syntheticGraphSystem } from '../graph/system.js';
import { DEFAULT_SCENARIO_FILES, defaultScenario, loadScenarioFiles } from '../graph/scenarios/scenario.js';
import { getSystem, listSystems, loadSystemModule } from '../system/registry.js';
import type { OperatorSystem } from '../system/types.js';
import { ArgumentError } from '../util/errors.js';
import { integerInRange } from '../util/validate.js';

/** A system in a command's terms (every field optional; the default is the reference graph on the default scenario). */
export interface SystemRequest {
  /** 'reference-graph' (default), 'closed-form', another registered name, or an operator module file (.mjs). */
  system?: string;
  /** Graph JSON file of the reference graph (with `evidence`). */
  graph?: string;
  /** Evidence pool JSON file of the reference graph (with `graph`). */
  evidence?: string;
  /** A synthetic reference graph with this Nmax instead (src/graph/synthetic.ts). */
  synthetic?: number;
  /** Edges per node of the synthetic graph (default 10). */
  edgesPerNode?: number;
  /** P(e) overrides of a built-in system that takes them (closed-form: e.g. { e2: 0, e3: 0 }). */
  probabilities?: Record<string, number>;
}

/** How a request was resolved. */
export interface ResolvedSystem {
  readonly system: OperatorSystem;
  /**
   * 'default' (the reference graph on the default scenario), 'files' (on graph and evidence
   * files), 'synthetic', 'built-in' or 'module'.
   */
  readonly origin: 'default' | 'files' | 'synthetic' | 'built-in' | 'module';
  /** Where the system came from, in words (the files, the built-in name, the module path). */
  readonly source: string;
}

/** Refuses combinations of the request's fields that name two systems at once. */
function checkRequest(r: SystemRequest): string {
  if ((r.graph === undefined) !== (r.evidence === undefined)) {
    const missing = r.graph === undefined ? '--graph' : '--evidence';
    throw new ArgumentError(missing, undefined, 'is required when the other of --graph/--evidence is given');
  }
  const name = r.system ?? 'reference-graph';
  if (r.graph !== undefined && name !== 'reference-graph')
    throw new ArgumentError('--graph', r.graph, 'applies to the reference graph only (drop --system)');
  if (r.synthetic !== undefined && r.graph !== undefined)
    throw new ArgumentError('--synthetic', r.synthetic, 'cannot be combined with --graph/--evidence');
  if (r.synthetic !== undefined && r.system !== undefined)
    throw new ArgumentError('--synthetic', r.synthetic, 'is a reference graph of its own: drop --system');
  if (r.edgesPerNode !== undefined && r.synthetic === undefined)
    throw new ArgumentError('--edges-per-node', r.edgesPerNode, 'needs --synthetic');
  if (r.synthetic !== undefined) integerInRange('--synthetic', r.synthetic, 20, 2 ** 20);
  if (r.edgesPerNode !== undefined) integerInRange('--edges-per-node', r.edgesPerNode, 4, 1000);
  if (r.probabilities !== undefined && name === 'reference-graph')
    throw new ArgumentError(
      '--probabilities',
      r.probabilities,
      'applies to built-in systems that take them (closed-form)',
    );
  return name;
}

/**
 * The system a request names. Call after `init()` so the reference graph's Q runs on the wasm
 * kernels.
 * @throws {ArgumentError} conflicting fields, an unknown name, an unreadable or invalid file
 *   (errors name the file and the JSON path).
 */
export async function resolveSystem(request: SystemRequest): Promise<ResolvedSystem> {
  const name = checkRequest(request);
  if (request.synthetic !== undefined) {
    const k = request.edgesPerNode ?? 10;
    return {
      system: syntheticGraphSystem(request.synthetic, { edgesPerNode: k }),
      origin: 'synthetic',
      source: `synthetic (Nmax = ${request.synthetic}, ~${k} edges per node, src/graph/synthetic.ts)`,
    };
  }
  if (name === 'reference-graph' && request.graph !== undefined)
    return {
      system: referenceGraphSystem(await loadScenarioFiles(request.graph, request.evidence!)),
      origin: 'files',
      source: `${request.graph} + ${request.evidence}`,
    };
  if (name === 'reference-graph') {
    const examples = DEFAULT_SCENARIO_FILES.graph.replace(/.*\/examples\//, 'examples/');
    return {
      system: referenceGraphSystem(defaultScenario()),
      origin: 'default',
      source: `default (${examples}, evidence.json)`,
    };
  }
  const looksLikeFile = /\.(mjs|js|cjs)$/.test(name) || name.includes('/') || existsSync(name);
  if (looksLikeFile) return { system: await loadSystemModule(name), origin: 'module', source: name };
  if (!listSystems().some((s) => s.name === name))
    throw new ArgumentError(
      '--system',
      name,
      `is neither a file nor a built-in system (built-in: ${listSystems()
        .map((s) => s.name)
        .join(', ')})`,
    );
  const params = request.probabilities ? { probabilities: request.probabilities } : undefined;
  return { system: getSystem(name, params), origin: 'built-in', source: 'built-in' };
}
