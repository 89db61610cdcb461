/**
 * Generates examples/samples/synthetic.jsonl: a small, seeded, synthetic set of recorded samples
 * in the `ordergap compare` format, so the command runs out of the box.
 *
 *   npx tsx scripts/generate-samples.ts [--seed S] [--out FILE]
 *
 * Model of the data (nothing here comes from a real model): 60 questions, 40 sampled completions
 * each. Each item has a gold answer, three distractors and a difficulty class — easy (40%: the
 * gold answer has probability 0.80–0.97 per sample), medium (35%: 0.45–0.75) and hard (25%:
 * 0.20–0.45, with one distractor nearly as likely); the rest of the mass goes to distractors.
 * Each sample is independently blank with probability 0.04 (a budget-exhausted output) or
 * without a readable answer with probability 0.03. Two items carry one transport failure
 * (null). Completions vary the marker's case and punctuation to exercise the normaliser.
 * test/lab/samples.test.ts checks that the committed file equals this generator's output.
 */
import { writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { createRng, sampleIndex, type Rng } from '../src/ordergap/rng.js';

const WORDS = [
  'amber',
  'basalt',
  'cedar',
  'dune',
  'ember',
  'fjord',
  'garnet',
  'harbor',
  'indigo',
  'juniper',
  'kestrel',
  'lagoon',
  'marble',
  'nectar',
  'onyx',
  'pewter',
  'quartz',
  'raven',
  'saffron',
  'tundra',
  'umber',
  'violet',
  'willow',
  'xenon',
  'yarrow',
  'zephyr',
  'alder',
  'birch',
  'cobalt',
  'delta',
];

const TEMPLATES = [
  (a: string) => `Let me reason step by step. Considering the clues, the answer is ${a}.`,
  (a: string) => `First I check each option. Therefore the answer is: ${a}`,
  (a: string) => `The Answer Is ${a.toUpperCase()}!`,
  (a: string) => `Thinking... It could be something else, but the answer is "${a}".`,
  (a: string) => `We compare the candidates; so, the answer is ${a[0]!.toUpperCase()}${a.slice(1)}.`,
];
const UNPARSEABLE = [
  'I am not sure how to decide between the options.',
  'Reasoning trace truncated before a conclusion',
  'The answer is 42.',
];

function pick<T>(rng: Rng, xs: readonly T[]): T {
  return xs[Math.floor(rng.next() * xs.length)]!;
}

function uniform(rng: Rng, lo: number, hi: number): number {
  return lo + (hi - lo) * rng.next();
}

/** One JSON object per line; deterministic for a seed. */
export function generateSyntheticSamples(seed = 20260506, items = 60, samplesPerItem = 40): string {
  const rng = createRng(seed);
  const lines: string[] = [];
  const failureItems = new Set([7, 33]);
  for (let i = 0; i < items; i++) {
    const pool = [...WORDS];
    const choose = (): string => pool.splice(Math.floor(rng.next() * pool.length), 1)[0]!;
    const gold = choose();
    const distractors = [choose(), choose(), choose()];
    const u = rng.next();
    let p: number[];
    if (u < 0.4) {
      const g = uniform(rng, 0.8, 0.97);
      p = [g, (1 - g) * 0.6, (1 - g) * 0.3, (1 - g) * 0.1];
    } else if (u < 0.75) {
      const g = uniform(rng, 0.45, 0.75);
      p = [g, (1 - g) * 0.5, (1 - g) * 0.3, (1 - g) * 0.2];
    } else {
      const g = uniform(rng, 0.2, 0.45);
      const d = g * uniform(rng, 0.8, 1.2);
      const rest = Math.max(1 - g - d, 0);
      p = [g, d, rest * 0.6, rest * 0.4];
    }
    const answers = [gold, ...distractors];
    const samples: (string | null)[] = [];
    for (let s = 0; s < samplesPerItem; s++) {
      const r = rng.next();
      if (r < 0.04) samples.push('');
      else if (r < 0.07) samples.push(pick(rng, UNPARSEABLE));
      else samples.push(pick(rng, TEMPLATES)(answers[sampleIndex(p, rng.next())]!));
    }
    if (failureItems.has(i)) samples[Math.floor(rng.next() * samplesPerItem)] = null;
    const question = `Synthetic question ${i + 1}: which word is hidden behind clue #${i + 1}?`;
    lines.push(JSON.stringify({ question, answer: gold[0]!.toUpperCase() + gold.slice(1), generated_answer: samples }));
  }
  return lines.join('\n') + '\n';
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const seedAt = args.indexOf('--seed');
  const outAt = args.indexOf('--out');
  const seed = seedAt >= 0 ? Number(args[seedAt + 1]) : undefined;
  const out = outAt >= 0 ? args[outAt + 1]! : 'examples/samples/synthetic.jsonl';
  await writeFile(out, generateSyntheticSamples(seed));
  process.stdout.write(`wrote ${out}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
