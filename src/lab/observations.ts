/**
 * The observation stream of one replayed item: the item's samples in a seeded order, each turned
 * into a {@link StepObservation} (answer, Ω from the vote-state system, confidence, score) plus
 * the running plurality. The stream does not depend on the stopping rule, so it is computed once
 * per (item, repeat) and every rule reads a prefix of it — the rules are compared on identical
 * sample orders (paired by construction).
 *
 * Per step t (after t samples, n of them answered, leader count v1):
 * - `omega`: Ω(θ_{t−1}; e_t) of the vote-state system (Eq. 2), θ_t = Q(P_{e_t}(θ_{t−1})) (Eq. 1);
 * - `confidence` = `score` = (v1 + 1)/(n + 2): Laplace's rule of succession for "the next
 *   answered sample agrees with the leader" (2/3 after one answer, 1/2 before any) — defined
 *   from the first step, unlike the raw share v1/n which is 1 after a single sample;
 * - `empty`: the completion was blank.
 */
import { orderGapOfMaps } from '../ordergap/orderGap.js';
import { createRng } from '../ordergap/rng.js';
import type { StepObservation } from '../stopping/rule.js';
import { VoteTally } from '../stopping/votes.js';
import { ArgumentError } from '../util/errors.js';
import { integerInRange } from '../util/validate.js';
import type { AnswerExtractor, Extraction } from './extractors.js';
import type { SampleItem } from './samples.js';
import { voteStateSystem, type VoteStateSystem } from './voteSystem.js';

/** One step of a stream. */
export interface StreamStep {
  readonly obs: StepObservation;
  /** What the extractor made of the sample. */
  readonly kind: Extraction['kind'];
  /** Plurality after this step (null: no answered sample yet). */
  readonly leader: string | null;
  /** Index of the sample in the item's recorded list. */
  readonly sampleIndex: number;
}

/** The stream of one (item, repeat). */
export interface ObservationStream {
  readonly steps: readonly StreamStep[];
  /** Step number (1-based) of the first transport failure within the budget, or null. */
  readonly failureAt: number | null;
  /** The sample order used (indices into the item's samples, first `budget` of a permutation). */
  readonly order: readonly number[];
}

/**
 * A 32-bit seed for (seed, repeat, item): a fixed integer hash (murmur3 finaliser over the three
 * words), so each item's order depends only on these three numbers, not on other items.
 */
export function unitSeed(seed: number, repeat: number, item: number): number {
  let h = seed >>> 0;
  for (const w of [repeat, item]) {
    h = Math.imul(h ^ (w >>> 0), 0x9e3779b1) >>> 0;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b) >>> 0;
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35) >>> 0;
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** A uniform random permutation of 0..n−1 (Fisher–Yates) from a seed. */
export function seededPermutation(n: number, seed: number): number[] {
  integerInRange('n', n, 0);
  const rng = createRng(seed >>> 0);
  const p = new Array<number>(n);
  for (let i = 0; i < n; i++) p[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    const t = p[i]!;
    p[i] = p[j]!;
    p[j] = t;
  }
  return p;
}

/** One observation of a {@link VoteObserver}: what a rule is shown, and the plurality after it. */
export interface VoteObservation {
  readonly obs: StepObservation;
  /** Plurality after this step (null: no answered sample yet). */
  readonly leader: string | null;
}

/**
 * The per-step computation of a stream, one extraction at a time: the vote-state system's Ω, the
 * tally, the Laplace confidence (see the module comment). Built over known candidate answers (a
 * replayed item's), or over K slots filled in arrival order by the distinct answers seen (a
 * live run drawing at most K samples has at most K distinct answers; the unused slots stay at
 * zero votes, as a replayed item's not-yet-seen candidates do).
 * Cost: O(K) per observation.
 * @throws {ArgumentError} (at observe) an answer outside the candidates, or more distinct answers
 *   than slots.
 */
export class VoteObserver {
  readonly #system: VoteStateSystem;
  readonly #index: Map<string, number>;
  readonly #slotted: boolean;
  readonly #capacity: number;
  readonly #tally = new VoteTally();
  /** θ_t, then the two buffers the next step's orderings are formed in (θ_{t+1} becomes θ). */
  #theta: Float64Array;
  #scratch: [Float64Array, Float64Array];
  #t = 0;

  /**
   * @param candidates the known answers, K answer slots, or a vote-state system already built
   *   over the known answers (an item replayed in several orders builds it once).
   * @param lambda λ of the vote-state system (ignored when a system is given: its own λ holds).
   */
  constructor(candidates: readonly string[] | number | VoteStateSystem, lambda: number) {
    this.#slotted = typeof candidates === 'number';
    if (typeof candidates === 'number') {
      this.#capacity = integerInRange('slots', candidates, 1);
      const names = Array.from({ length: this.#capacity }, (_, i) => `#${i + 1}`);
      this.#system = voteStateSystem(names, { lambda });
      this.#index = new Map();
    } else {
      this.#system = isVoteStateSystem(candidates) ? candidates : voteStateSystem(candidates, { lambda });
      this.#capacity = this.#system.layout.candidates.length;
      this.#index = new Map(this.#system.layout.candidates.map((a, i) => [a, i]));
    }
    const theta0 = this.#system.theta0!;
    this.#theta = theta0.slice(); // the system's θ₀ is shared by every observer built on it
    this.#scratch = [new Float64Array(theta0.length), new Float64Array(theta0.length)];
  }

  /** Observes the next sample's extraction (step t + 1). */
  observe(ex: Extraction): VoteObservation {
    const answer = ex.kind === 'answer' ? ex.answer : null;
    const t = ++this.#t;
    const e = answer === null ? -1 : this.#indexOf(answer);
    const maps = this.#system.maps;
    const scratch = this.#scratch;
    const ev = orderGapOfMaps((x, out) => maps.expand(e, x, out), maps.consolidate, this.#theta, scratch);
    // θ_{t+1} = Q(P_e(θ_t)) is scratch[0]; the old θ's buffer takes its place for the next step
    scratch[0] = this.#theta;
    this.#theta = ev.expandThenConsolidate;
    this.#tally.add(answer);
    const [v1] = this.#tally.topTwo();
    const confidence = (v1 + 1) / (this.#tally.valid + 2);
    return {
      obs: { t, answer, empty: ex.kind === 'empty', omega: ev.omega, confidence, score: confidence },
      leader: this.#tally.leader(),
    };
  }

  /** The candidate index of an answer; in slot mode, the next free slot for a new one. */
  #indexOf(answer: string): number {
    let i = this.#index.get(answer);
    if (i !== undefined) return i;
    if (!this.#slotted || this.#index.size >= this.#capacity)
      throw new ArgumentError(
        'answer',
        answer,
        this.#slotted
          ? `is a distinct answer beyond the ${this.#capacity} slots`
          : `is not a candidate (known: ${this.#system.layout.candidates.join(', ')})`,
      );
    i = this.#index.size;
    this.#index.set(answer, i);
    return i;
  }
}

function isVoteStateSystem(x: readonly string[] | VoteStateSystem): x is VoteStateSystem {
  return !Array.isArray(x);
}

/** What a stream needs of an item whatever the order: its extractions and its vote-state system. */
export interface PreparedItem {
  /** The extractor's reading of each recorded sample (null: a transport failure). */
  readonly extractions: readonly (Extraction | null)[];
  /** The vote-state system over the item's distinct answers, in order of first appearance. */
  readonly system: VoteStateSystem;
}

/**
 * Extracts an item's samples and builds its vote-state system, once for all its repeats.
 * Cost: O(N) extractions plus O(K) for the system.
 */
export function prepareItem(item: SampleItem, extractor: AnswerExtractor, lambda: number): PreparedItem {
  const extractions = item.samples.map((s) => (s === null ? null : extractor.extract(s)));
  const candidates: string[] = [];
  const seen = new Set<string>();
  for (const e of extractions)
    if (e?.kind === 'answer' && !seen.has(e.answer)) {
      seen.add(e.answer);
      candidates.push(e.answer);
    }
  return { extractions, system: voteStateSystem(candidates, { lambda }) };
}

/**
 * Builds the stream of one item for one repeat. Stops at the first transport failure (null
 * sample): nothing after it can be observed. `prepared` (from {@link prepareItem} with the same
 * extractor and λ) saves re-extracting the item for each repeat.
 * Cost: O(budget·K) (one order-gap evaluation of the (2K+1)-dimensional vote state per step).
 */
export function buildStream(
  item: SampleItem,
  extractor: AnswerExtractor,
  options: { seed: number; repeat: number; itemIndex: number; budget: number; lambda: number },
  prepared: PreparedItem = prepareItem(item, extractor, options.lambda),
): ObservationStream {
  const { extractions } = prepared;
  const observer = new VoteObserver(prepared.system, options.lambda);
  const perm = seededPermutation(item.samples.length, unitSeed(options.seed, options.repeat, options.itemIndex));
  const order = perm.slice(0, Math.min(options.budget, perm.length));
  const steps: StreamStep[] = [];
  let failureAt: number | null = null;
  for (let t = 1; t <= order.length; t++) {
    const idx = order[t - 1]!;
    const ex = extractions[idx];
    if (ex === null || ex === undefined) {
      failureAt = t;
      break;
    }
    const { obs, leader } = observer.observe(ex);
    steps.push({ obs, leader, kind: ex.kind, sampleIndex: idx });
  }
  return { steps, failureAt, order };
}
