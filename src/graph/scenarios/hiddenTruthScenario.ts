/**
 * Synthetic scenarios with a known truth, for the stopping benchmarks: `questions` questions,
 * each with a true and a false answer; per question two often-retrieved items from a weak source
 * supporting the false answer, one rarely retrieved item from a reliable source supporting the
 * true answer and contradicting the first weak claim (base weight `rareWeight`), and two
 * unrelated items. A loop that stops before drawing the rare items answers wrongly; the
 * coverage check sees that those items would still move the state. Deterministic per seed.
 */
import { confidenceIndex } from '../model/layout.js';
import { createScenario, type Scenario } from './scenario.js';

/** Options of {@link hiddenTruthScenario}. */
export interface HiddenTruthScenarioOptions {
  /** Number of questions (>= 1, default 3). */
  questions?: number;
  /** Base weight of each question's reliable item (default 0.08, the weak ones have 1). */
  rareWeight?: number;
  /** Run defaults (ε, w, Tmax, seed) stored in the scenario (default 0.01, 4, 150, 0). */
  run?: { epsilon?: number; window?: number; maxSteps?: number; seed?: number };
}

/** A synthetic scenario, its documents and its truth. */
export interface HiddenTruthScenario {
  readonly scenario: Scenario;
  readonly graph: unknown;
  readonly evidence: unknown;
  /** Per question id, the id of its true answer. */
  readonly truth: Readonly<Record<string, string>>;
}

function rng(seed: number): () => number {
  let s = (seed >>> 0) * 2654435761 + 1;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Builds the scenario (see the module comment). k = 4.
 * @example
 * ```ts
 * const { scenario, truth } = hiddenTruthScenario(1, { questions: 3 });
 * scenario.items.length; // 15
 * ```
 */
export function hiddenTruthScenario(seed: number, options: HiddenTruthScenarioOptions = {}): HiddenTruthScenario {
  const nq = options.questions ?? 3;
  const rare = options.rareWeight ?? 0.08;
  const rnd = rng(seed);
  const attr = () => [rnd(), rnd(), rnd(), 0];
  const nodes: unknown[] = [];
  const edges: unknown[] = [];
  const items: unknown[] = [];
  const truth: Record<string, string> = {};
  for (let q = 0; q < nq; q++) {
    const Q = `q:${q}`;
    const T = `a:${q}:true`;
    const F = `a:${q}:false`;
    truth[Q] = T;
    nodes.push({ id: Q, type: 'question', text: `question ${q}`, attributes: attr(), confidence: 1 });
    for (const a of [T, F]) {
      nodes.push({ id: a, type: 'answer', question: Q, text: a, attributes: attr(), confidence: 0.05 });
      edges.push({ type: 'Requires', source: a, target: Q, weight: 1 });
    }
    const resolve = [T, F].map((a) => ({ type: 'Requires', source: a, target: Q, weight: 0 }));
    /** An item of one claim (its attributes drawn now, in the order the items are listed). */
    const item = (id: string, weight: number, claim: string, text: string, source: string, support: number) => ({
      id,
      strength: 0.7,
      weight,
      claims: [{ id: claim, text, source, support, attributes: attr() }],
    });
    for (let j = 0; j < 2; j++) {
      const c = `c:${q}:weak${j}`;
      items.push({
        ...item(`e${q}w${j}`, 1, c, `weak claim ${j} on ${Q}`, 'forum', 0.45),
        edges: [{ type: 'Supports', source: c, target: F, weight: 0.6 }],
      });
    }
    const c = `c:${q}:reliable`;
    items.push({
      ...item(`e${q}r`, rare, c, `reliable claim on ${Q}`, 'reference', 0.95),
      edges: [
        { type: 'Supports', source: c, target: T, weight: 0.95 },
        { type: 'Contradicts', source: c, target: `c:${q}:weak0`, weight: 0.9 },
        ...resolve,
      ],
    });
    for (let j = 0; j < 2; j++)
      items.push({ ...item(`e${q}u${j}`, 0.6, `c:${q}:aside${j}`, `aside ${j}`, 'blog', 0.6), edges: [] });
  }
  const graph = { k: 4, capacities: { claims: 5 * nq, answers: 2 * nq, questions: nq }, nodes, edges };
  const evidence = {
    adaptiveGain: 2,
    run: { epsilon: 0.01, window: 4, maxSteps: 150, seed: 0, ...options.run },
    items,
  };
  return { scenario: createScenario(graph, evidence), graph, evidence, truth };
}

/**
 * Accuracy of the answers in θ against a truth: the fraction of questions whose highest-
 * confidence answer is the true one.
 */
export function answerAccuracy(
  scenario: Scenario,
  theta: Float64Array,
  truth: Readonly<Record<string, string>>,
): number {
  const { layout, shape } = scenario;
  let right = 0;
  let n = 0;
  for (const g of shape.groups) {
    const q = layout.slots[g.question]!.id!;
    if (!(q in truth)) continue;
    n++;
    let best = -1;
    let bestC = -Infinity;
    for (const a of g.answers) {
      const c = theta[confidenceIndex(layout, a)]!;
      if (c > bestC) [best, bestC] = [a, c];
    }
    if (layout.slots[best]!.id === truth[q]) right++;
  }
  return n === 0 ? 0 : right / n;
}
