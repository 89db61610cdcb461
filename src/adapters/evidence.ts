/**
 * What the adapters share: recognising evidence items among tool results, feeding them to an
 * `AgentState` and a `CoverageStopper` one step at a time, and the failed tool calls their stop
 * reports list (a failed call brings no evidence; it is reported, not dropped).
 */
import type { CoverageStopper, StopperSnapshot, StopReport } from '../coverageStop/stopper.js';
import type { AgentState, EvidenceInput, StateDocument } from '../graph/agent/agent.js';
import { agentCheckSite } from '../graph/system.js';
import { ArgumentError, ArgumentTypeError } from '../util/errors.js';
import { jsonCopy } from '../util/json.js';
import { finiteNumber } from '../util/validate.js';

/** True for the JSON form of an evidence item: an object with a string `id`, a numeric `strength` and `claims` or `edges`. */
export function isEvidenceItem(x: unknown): x is Record<string, unknown> {
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return false;
  const o = x as Record<string, unknown>;
  return (
    typeof o['id'] === 'string' &&
    typeof o['strength'] === 'number' &&
    (Array.isArray(o['claims']) || Array.isArray(o['edges']))
  );
}

/**
 * Checks what both adapters take: an AgentState, a CoverageStopper and the optional callbacks
 * `evidenceOf` and `candidates`.
 * @throws {ArgumentTypeError} naming the option of the wrong type.
 */
export function checkAdapterOptions(options: {
  state: unknown;
  stopper: unknown;
  evidenceOf?: unknown;
  candidates?: unknown;
  adaptiveGain?: unknown;
}): void {
  const { state, stopper } = options;
  if (typeof (state as { step?: unknown } | null)?.step !== 'function')
    throw new ArgumentTypeError('state', state, 'must be an AgentState');
  if (typeof (stopper as { observe?: unknown } | null)?.observe !== 'function')
    throw new ArgumentTypeError('stopper', stopper, 'must be a CoverageStopper');
  for (const f of ['evidenceOf', 'candidates'] as const)
    if (options[f] !== undefined && typeof options[f] !== 'function')
      throw new ArgumentTypeError(f, options[f], 'must be a function');
  if (options.adaptiveGain !== undefined) {
    const g = finiteNumber('adaptiveGain', options.adaptiveGain);
    if (g < 0) throw new ArgumentError('adaptiveGain', g, 'must be >= 0');
  }
}

/**
 * A tool call that failed, as both adapters report it; each adapter adds where in its loop the
 * call was (the AI SDK's step, the LangGraph message).
 */
export interface ToolCallError {
  readonly toolName: string;
  readonly toolCallId: string;
  /** The error's message (its text when the error is not an Error). */
  readonly message: string;
}

/** A stop report with the failed tool calls read up to it. */
export interface ToolErrorsReport<E extends ToolCallError = ToolCallError> extends StopReport {
  /** Every failed tool call read up to this report, in order: their count is its length. */
  readonly toolErrors: readonly E[];
}

/** The message of a thrown value: an Error's `message`, else its text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What an {@link EvidenceFeed} holds, as plain JSON: the agent state's document, the stopper's
 * snapshot, the Ω of every applied item and the failed tool calls read.
 */
export interface FeedSnapshot<E extends ToolCallError = ToolCallError> {
  /** `AgentState.toJSON()`. */
  readonly state: StateDocument;
  /** `CoverageStopper.snapshot()`. */
  readonly stopper: StopperSnapshot;
  /** Ω(θ; e) of each applied item, in order. */
  readonly omegas: readonly number[];
  readonly toolErrors: readonly E[];
  /** Whether an item has been fed (the stopper's report is then the feed's). */
  readonly fed: boolean;
}

/** Feeds evidence items to the state and the stopper, and keeps the failed tool calls read (module comment). */
export class EvidenceFeed<E extends ToolCallError = ToolCallError> {
  readonly #state: AgentState;
  readonly #stopper: CoverageStopper;
  readonly #candidates: (() => readonly EvidenceInput[]) | undefined;
  readonly #gain: number | undefined;
  #decided: StopReport | null = null;
  omegas: number[] = [];
  /** Every failed tool call the adapter has read, in order (the adapter appends them). */
  toolErrors: E[] = [];

  constructor(
    state: AgentState,
    stopper: CoverageStopper,
    candidates?: () => readonly EvidenceInput[],
    adaptiveGain?: number,
  ) {
    this.#state = state;
    this.#stopper = stopper;
    this.#candidates = candidates;
    this.#gain = adaptiveGain;
  }

  /**
   * One step per item: Ω = state.step(item), then the stopper's decision. Stops at the first
   * report that says stop (later items of the same batch are not applied).
   * @throws as `AgentState.step` for an invalid item (the state is unchanged); as
   *   `agentCheckSite` when the candidates are empty at a candidate stop.
   */
  async feed(items: readonly EvidenceInput[]): Promise<StopReport | null> {
    let last: StopReport | null = null;
    for (const item of items) {
      const omega = this.#state.step(item);
      this.omegas.push(omega);
      const gain = this.#gain;
      last = await this.#stopper.observe({ omega }, () =>
        agentCheckSite(this.#state, this.#candidates?.(), gain === undefined ? {} : { adaptiveGain: gain }),
      );
      if (last.stop) break;
    }
    this.#decided = last ?? this.#decided;
    return last;
  }

  /**
   * The feed's state with the state's and the stopper's ({@link FeedSnapshot}).
   * @throws as `CoverageStopper.snapshot` (a rule that cannot be saved).
   */
  snapshot(): FeedSnapshot<E> {
    return {
      state: this.#state.toJSON(),
      stopper: this.#stopper.snapshot(),
      omegas: [...this.omegas],
      toolErrors: jsonCopy(this.toolErrors),
      fed: this.#decided !== null,
    };
  }

  /**
   * Makes the state, the stopper and the feed those of `snapshot` (in place: whoever holds them
   * sees the restored ones).
   * @throws {ArgumentError} as `AgentState.restore` and `CoverageStopper.restore`, or omegas and
   *   toolErrors not arrays (nothing is changed).
   */
  restore(snapshot: FeedSnapshot<E>): void {
    const s = snapshot as Partial<FeedSnapshot<E>> | null;
    if (typeof s !== 'object' || s === null) throw new ArgumentTypeError('snapshot', s, 'must be a feed snapshot');
    const omegas = Array.isArray(s.omegas) ? s.omegas.map((w, i) => finiteNumber(`snapshot.omegas[${i}]`, w)) : null;
    if (!omegas) throw new ArgumentError('snapshot.omegas', s.omegas, 'must be an array of order-gaps');
    if (!Array.isArray(s.toolErrors)) throw new ArgumentError('snapshot.toolErrors', s.toolErrors, 'must be an array');
    const toolErrors = jsonCopy(s.toolErrors as E[]);
    const before = this.#stopper.snapshot();
    this.#stopper.restore(s.stopper!);
    try {
      this.#state.restore(s.state);
    } catch (e) {
      this.#stopper.restore(before);
      throw e;
    }
    this.omegas = omegas;
    this.toolErrors = toolErrors;
    this.#decided = s.fed === true ? this.#stopper.report : null;
  }

  /** True once a report has said stop (nothing is fed after it). */
  get stopped(): boolean {
    return this.#decided?.stop ?? false;
  }

  /**
   * The stopper's latest report with `extra` and the failed tool calls read so far, frozen; null
   * before the first evidence item.
   */
  report<X extends object>(extra: X): (ToolErrorsReport<E> & X) | null {
    return this.#decided && Object.freeze({ ...this.#decided, ...extra, toolErrors: [...this.toolErrors] });
  }
}
