/**
 * The synthetic reference-graph scenario of the certification benchmarks (bench/certify.ts,
 * bench/proof.ts): nQ = 8 questions with 2 answers each, `items` evidence items each adding one
 * claim that supports one answer, k attributes per node, generated from a seeded rng.
 */
import { createScenario } from '../src/graph/scenarios/scenario.js';
import { createRng } from '../src/ordergap/rng.js';

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

/** A synthetic scenario: nQ questions with 2 answers each, `items` items each adding one claim. */
export function syntheticScenario(nmax: number, items: number, k = 8, seed = 1) {
  const rng = createRng(seed);
  const nQ = 8;
  const caps = { questions: nQ, answers: 2 * nQ, claims: nmax - 3 * nQ };
  const attrs = () => Array.from({ length: k }, () => round(rng.next(), 6));
  const nodes: unknown[] = [];
  const edges: unknown[] = [];
  for (let q = 0; q < nQ; q++) {
    nodes.push({ id: `q${q}`, type: 'question', text: `question ${q}`, attributes: attrs(), confidence: 1 });
    for (let a = 0; a < 2; a++)
      nodes.push({
        id: `a${q}_${a}`,
        type: 'answer',
        question: `q${q}`,
        text: `answer ${q}.${a}`,
        attributes: attrs(),
        confidence: 0.05,
      });
  }
  const pool = Array.from({ length: items }, (_, i) => {
    const q = i % nQ;
    const a = Math.floor(i / nQ) % 2;
    const claim = `c${i}`;
    return {
      id: `e${String(i).padStart(2, '0')}`,
      text: `item ${i}`,
      strength: 0.7,
      weight: 1,
      claims: [
        {
          id: claim,
          text: `claim ${i}`,
          source: `s${i % 5}`,
          support: round(0.5 + 0.4 * rng.next(), 4),
          attributes: attrs(),
        },
      ],
      edges: [
        { type: 'Supports', source: claim, target: `a${q}_${a}`, weight: round(0.5 + 0.4 * rng.next(), 4) },
        { type: 'Requires', source: `a${q}_${a}`, target: `q${q}`, weight: 0 },
      ],
    };
  });
  return createScenario({ k, capacities: caps, nodes, edges }, { adaptiveGain: 2, items: pool });
}
