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
import type { BuildProgress } from '../graph/state/state.js';
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
  /** A synthetic reference graph with this Nmax instead (src/graph/scenarios/synthetic.ts). */
  synthetic?: number;
  /** Edges per node of the synthetic graph (default 10). */
  edgesPerNode?: number;
  /** P(e) overrides of a built-in system that takes them (closed-form: e.g. { e2: 0, e3: 0 }). */
  probabilities?: Record<string, number>;
  /**
   * The threshold δ of the states in words (`run --delta`): refused here for a system that does
   * not describe its states (no `describe.summary`), where it would change nothing.
   */
  delta?: number;
  /**
   * The consolidation schedule (`run --schedule`): refused here for a system without a
   * structured state, the only one a schedule can save work on.
   */
  schedule?: number;
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

/** The built-in systems whose factory takes P(e) overrides (`--probabilities`). */
const TAKES_PROBABILITIES: readonly string[] = ['closed-form'];

/** `--probabilities` as given on the command line (`e2=0,e3=0`), for messages. */
function probabilityList(p: Record<string, number>): string {
  return Object.entries(p)
    .map(([id, x]) => `${id}=${x}`)
    .join(',');
}

/**
 * Refuses the options that apply to other systems than `name` (a built-in name or a module
 * path), naming the option and the system: what a command would otherwise ignore without a word.
 */
function checkAppliesTo(name: string, r: SystemRequest): void {
  const notHere = `applies to reference-graph only, not to ${name}`;
  if (r.graph !== undefined && name !== 'reference-graph') throw new ArgumentError('--graph', r.graph, notHere);
  if (r.synthetic !== undefined && name !== 'reference-graph')
    throw new ArgumentError('--synthetic', r.synthetic, notHere);
  if (r.probabilities !== undefined && !TAKES_PROBABILITIES.includes(name))
    throw new ArgumentError(
      '--probabilities',
      probabilityList(r.probabilities),
      `applies to ${TAKES_PROBABILITIES.join(', ')} only, not to ${name}`,
    );
}

/**
 * Refuses the options that need a capability `system` does not declare (`--delta`: a state in
 * words; `--schedule`: a structured state), naming the option and the system.
 */
function checkCapabilities(system: OperatorSystem, r: SystemRequest): void {
  if (r.delta !== undefined && system.capabilities.describe?.summary === undefined)
    throw new ArgumentError(
      '--delta',
      r.delta,
      `applies to systems that describe their states in words; ${system.name} does not (it declares no describe.summary)`,
    );
  if (r.schedule !== undefined && system.capabilities.state === undefined)
    throw new ArgumentError(
      '--schedule',
      r.schedule,
      `needs a structured state, which ${system.name} does not declare (a dense run measures Ω with two Q's, so scheduling would save none)`,
    );
}

/** Whether `name` names an operator module file rather than a built-in system. */
function namesModule(name: string): boolean {
  return /\.(mjs|js|cjs)$/.test(name) || name.includes('/') || existsSync(name);
}

/**
 * Refuses combinations of the request's fields that name two systems at once, an unknown
 * system, or options of another system; returns the system's name (or module path).
 */
function checkRequest(r: SystemRequest): string {
  if ((r.graph === undefined) !== (r.evidence === undefined)) {
    const missing = r.graph === undefined ? '--graph' : '--evidence';
    throw new ArgumentError(missing, undefined, 'is required when the other of --graph/--evidence is given');
  }
  const name = r.system ?? 'reference-graph';
  if (!namesModule(name) && !listSystems().some((s) => s.name === name))
    throw new ArgumentError(
      '--system',
      name,
      `is neither a file nor a built-in system (built-in: ${listSystems()
        .map((s) => s.name)
        .join(', ')})`,
    );
  checkAppliesTo(name, r);
  if (r.synthetic !== undefined && r.graph !== undefined)
    throw new ArgumentError('--synthetic', r.synthetic, 'cannot be combined with --graph/--evidence');
  if (r.edgesPerNode !== undefined && r.synthetic === undefined)
    throw new ArgumentError('--edges-per-node', r.edgesPerNode, 'needs --synthetic');
  if (r.synthetic !== undefined) integerInRange('--synthetic', r.synthetic, 20, 2 ** 20);
  if (r.edgesPerNode !== undefined) integerInRange('--edges-per-node', r.edgesPerNode, 4, 1000);
  return name;
}

/** The system of a checked request named `name`, and where it came from. */
async function buildSystem(
  name: string,
  request: SystemRequest,
  onStateBuild?: BuildProgress,
): Promise<ResolvedSystem> {
  if (request.synthetic !== undefined) {
    const k = request.edgesPerNode ?? 10;
    return {
      system: syntheticGraphSystem(request.synthetic, { edgesPerNode: k, ...(onStateBuild ? { onStateBuild } : {}) }),
      origin: 'synthetic',
      source: `synthetic (Nmax = ${request.synthetic}, ~${k} edges per node)`,
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
  if (namesModule(name)) return { system: await loadSystemModule(name), origin: 'module', source: name };
  const params = request.probabilities ? { probabilities: request.probabilities } : undefined;
  return { system: getSystem(name, params), origin: 'built-in', source: 'built-in' };
}

/**
 * The system a request names. Call after `init()` so the reference graph's Q runs on the wasm
 * kernels; `onStateBuild` follows every build of a synthetic graph's structured state. An option
 * that does not apply to the named system (`--graph`/`--evidence` and
 * `--synthetic` other than on reference-graph, `--probabilities` other than on closed-form,
 * `--delta` and `--schedule` on a system without the capability they need) is refused naming
 * the option and the system, rather than ignored.
 * @throws {ArgumentError} conflicting fields, an unknown name, an option of another system, an
 *   unreadable or invalid file (errors name the file and the JSON path).
 */
export async function resolveSystem(request: SystemRequest, onStateBuild?: BuildProgress): Promise<ResolvedSystem> {
  const resolved = await buildSystem(checkRequest(request), request, onStateBuild);
  checkCapabilities(resolved.system, request);
  return resolved;
}
