/**
 * `ordergap run`: parses the options, prints {@link runReport}'s result (text or `--json`),
 * shows a progress bar on stderr for long runs, writes the plots and, on request, every state.
 */
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { RunReportOptions } from '../report/run.js';
import type { RunProgress } from '../report/runCost.js';
import { COVERAGE_POLICIES, type CoveragePolicy } from '../coverageStop/policies.js';
import { REDIRECT_STEERS, type RedirectSteer } from '../coverageStop/steer.js';
import { parseRuleSpec } from '../stopping/registry.js';
import { removeStaleTemporaries, temporaryPathFor } from '../util/atomicWrite.js';
import { ProgressBar } from './progress.js';
import {
  checkCommandDestinations,
  checkInputPaths,
  parseIntAtLeast,
  parsePositive,
  printJson,
  printThreads,
  runParamOptions,
  systemOptions,
  threadsOption,
} from './options.js';

function parseUnitOpen(value: string): number {
  const x = Number(value);
  if (value.trim() === '' || !(x > 0 && x < 1)) throw new InvalidArgumentError(`'${value}' must lie in (0, 1).`);
  return x;
}

/** `--rule NAME[:k=v,...]`, checked now (unknown names and bad parameters are exit 2). */
function parseRule(value: string): string {
  try {
    parseRuleSpec(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
  return value;
}

/** A value that must be one of `allowed` (exit 2 naming them otherwise). */
function parseOneOf<T extends string>(allowed: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(allowed as readonly string[]).includes(value))
      throw new InvalidArgumentError(`'${value}' must be one of ${allowed.join(', ')}.`);
    return value as T;
  };
}

type RunCommandOptions = Omit<RunReportOptions, 'onStep' | 'onState' | 'onProgress'> & {
  json?: boolean;
  plot?: string;
  progress?: boolean;
  recordStates?: string;
};

/**
 * Milliseconds after which a run shows its progress bar, or that its estimated time must exceed
 * for the bar to show at once (shorter runs finish before it would help).
 */
const PROGRESS_AFTER_MS = 500;

/** The bar: `what` and `left` come from {@link runProgressText}. */
const PROGRESS_FORMAT = 'Algorithm 1 [{bar}] {what}, {duration_formatted}{left}';

/** Registers `ordergap run` on the program. */
export function registerRunCommand(program: Command): void {
  const command = program
    .command('run')
    .description(
      'Algorithm 1 on a system — the reference graph on the default scenario (or --graph/--evidence, or --synthetic NMAX), a built-in system or an operator module (--system) — under its own test or any registered rule (--rule): trajectory, stop, final state in words',
    );
  runParamOptions(
    threadsOption(systemOptions(command))
      .option('--synthetic <nmax>', 'a synthetic scenario with NMAX slots (k = 8) instead', parseIntAtLeast(20))
      .option('--edges-per-node <k>', 'edges per node of the synthetic scenario (default 10)', parseIntAtLeast(4))
      .option(
        '--rule <spec>',
        "a registered stopping rule NAME[:k=v,...] (see 'ordergap compare --help') instead of Algorithm 1's own test",
        parseRule,
      ),
    {
      epsilon: 'stopping threshold ε',
      window: 'window length w',
      maxSteps: 'step budget Tmax',
      seed: 'seed of the evidence sampler (a system whose defaults fix a sequence then samples instead)',
    },
  )
    .option('--delta <number>', 'consistency / openness threshold δ in (0, 1) (default 0.5)', parseUnitOpen)
    .option(
      '--coverage <policy>',
      "also run the coverage-aware stop beside the paper's rule: stop (the paper's rule, reporting converged or blind), continue (refuse a blind stop up to the budget) or redirect (refuse it and weight toward the items --steer names)",
      parseOneOf<CoveragePolicy>(COVERAGE_POLICIES),
    )
    .option(
      '--steer <steering>',
      'with --coverage redirect, what it weights toward: coverage (the items addressing the questions failing the coverage check, Sec. 7.3; default) or order-gap (the items with Ω > ε and those addressing uncovered questions)',
      parseOneOf<RedirectSteer>(REDIRECT_STEERS),
    )
    .option(
      '--schedule <threshold>',
      'consolidation scheduling (Sec. 7.3): apply Q only when the accumulated Ω exceeds THRESHOLD',
      parsePositive,
    )
    .option('--record-states <file>', 'also write every θ_t to FILE as JSON lines {t, theta: [[index, value], ...]}')
    .option('--json', 'print one JSON document (numbers unrounded)')
    .option('--plot <dir>', 'also write the trajectory plot to DIR as SVG and PNG (paths on stderr)')
    .option('--no-progress', 'no progress bar')
    .option(
      '--no-size-limit',
      'run a --synthetic size even when its estimated time or memory exceeds the limits (docs/cli.md)',
    )
    .action(async (opts: RunCommandOptions) => {
      // the library is loaded only by the command that runs (`ordergap compare` does not load it)
      const [{ runReport }, { checkRunSize, runProgressText }, { renderRunText }, { writeRunPlots }] =
        await Promise.all([
          import('../report/run.js'),
          import('../report/runCost.js'),
          import('../report/runText.js'),
          import('../report/runPlots.js'),
        ]);
      let recordFd: number | undefined;
      let recordTmp: string | undefined;
      let target: string | undefined;
      checkInputPaths({ '--graph': opts.graph, '--evidence': opts.evidence, '--system': opts.system });
      checkRunSize(opts);
      // every destination is checked before any work
      checkCommandDestinations({
        plot: opts.plot,
        ...(opts.recordStates !== undefined ? { files: { '--record-states': opts.recordStates } } : {}),
      });
      if (opts.recordStates !== undefined) {
        // lines go to a temporary file renamed at the end (left-overs of a killed run removed first)
        target = resolve(opts.recordStates);
        removeStaleTemporaries(target);
        recordTmp = temporaryPathFor(target);
      }
      const showBar = !opts.json && opts.progress !== false && process.stderr.isTTY === true;
      const bar = showBar ? new ProgressBar(PROGRESS_FORMAT) : undefined;
      const started = Date.now();
      // the bar counts thousandths of the run's estimated work; its text says the steps and the time left
      const onProgress = bar
        ? (p: RunProgress) => {
            if (p.done) bar.finish(undefined, runProgressText(p));
            else if (
              bar.started ||
              Date.now() - started > PROGRESS_AFTER_MS ||
              (p.remainingMs ?? 0) > PROGRESS_AFTER_MS
            )
              bar.update(Math.round(1000 * p.fraction), 1000, runProgressText(p));
          }
        : undefined;
      try {
        if (recordTmp !== undefined) recordFd = openSync(recordTmp, 'w');
        const report = await runReport({
          ...opts,
          ...(onProgress ? { onProgress } : {}),
          ...(recordFd !== undefined
            ? {
                onState: (t: number, theta: Array<[number, number]>) =>
                  writeSync(recordFd!, JSON.stringify({ t, theta }) + '\n'),
              }
            : {}),
        });
        if (recordFd !== undefined) {
          closeSync(recordFd);
          recordFd = undefined;
          renameSync(recordTmp!, target!);
          recordTmp = undefined;
        }
        printThreads(report.threads);
        if (opts.plot !== undefined) await writeRunPlots(opts.plot, report, process.stderr);
        if (opts.json) printJson(report);
        else process.stdout.write(renderRunText(report) + '\n');
      } finally {
        bar?.stop();
        if (recordFd !== undefined) closeSync(recordFd);
        if (recordTmp !== undefined) rmSync(recordTmp, { force: true });
      }
    });
}
