/**
 * `ordergap certify`: parses the options, prints {@link certifyReport}'s result (text or
 * `--json`), and writes the HTML report and plots on request. Exit status 0 whatever the
 * verdicts (they are in the output); 2 for a bad flag or value.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { ProgressBar } from './progress.js';
import type { CertifyRequest } from '../report/certify.js';
import { ArgumentError } from '../util/errors.js';
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

/** Options of `ordergap certify` (after parsing). */
export interface CertifyCommandOptions extends Omit<CertifyRequest, 'from'> {
  from?: string;
  json?: boolean;
  progress?: boolean;
  report?: string;
  plot?: string;
  proof?: string;
}

function parseChoice<T extends string>(choices: readonly T[]): (v: string) => T {
  return (v: string) => {
    if (!(choices as readonly string[]).includes(v))
      throw new InvalidArgumentError(`'${v}' must be one of ${choices.join(', ')}.`);
    return v as T;
  };
}

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

/** Registers `ordergap certify` on the program. */
export function registerCertifyCommand(program: Command): void {
  const command = program
    .command('certify')
    .description(
      'verify Q (fixed point, contraction), redundancy, and non-degeneracy of the linearised order-gap on subspaces and per question (Prop. 5.2)',
    );
  runParamOptions(threadsOption(systemOptions(command)), {
    epsilon: 'ε of the run used by --at stop / --from stop',
    window: 'w of that run',
    maxSteps: 'Tmax of that run',
    seed: 'seed of the run and of the Lipschitz search',
  })
    .option('--subspace <name>', 'subspace W to decide (repeatable; default: the system’s declared ones)', collect)
    .option('--question <name>', 'question W_q to check (repeatable; default: all declared)', collect)
    .option(
      '--jacobian <method>',
      'fd (central differences, f64) or autodiff (tfjs, float32)',
      parseChoice(['fd', 'autodiff'] as const),
    )
    .option(
      '--linearization <mode>',
      'auto (Eq. 4 where redundancy holds, exact DF_e elsewhere), sigma, or exact',
      parseChoice(['auto', 'sigma', 'exact'] as const),
    )
    .option('--at <state>', "linearise at 'stop' (where Algorithm 1 stops) or at comma-separated coordinates")
    .option('--from <start>', "start of the fixed-point iteration: 'theta0' or 'stop' (default: stop for the graph)")
    .option('--samples <n>', 'random pairs for the empirical Lipschitz bound', parseIntAtLeast(0))
    .option('--radius <number>', 'relative half-width of the box for the Lipschitz search', parsePositive)
    .option('--proof <file.json>', 'also write the proof certificate (every enclosure and bound) for check-proof')
    .option('--no-proofs', 'no proofs by enclosure (search and declared bounds only)')
    .option('--proof-budget <n>', 'interval enclosures per contraction block at most', parseIntAtLeast(1))
    .option(
      '--proof-max-entries <n>',
      'largest d·|W| proved (default: 16777216 for contraction blocks; items·d·|W| <= 8388608 for subspaces)',
      parseIntAtLeast(1),
    )
    .option('--json', 'print one JSON document')
    .option('--no-timings', 'leave the per-phase timings out (two runs then print identical output)')
    .option('--report <file.html>', 'also write the report as a self-contained HTML page')
    .option('--plot <dir>', 'also write the margin plots (subspaces, coverage) to DIR as SVG and PNG')
    .option('--no-progress', 'no progress bar')
    .action(async (opts: CertifyCommandOptions) => {
      // the library is loaded only by the command that runs (`ordergap compare` does not load it)
      const [{ certificateOf, certifyReport, renderCertifyText }, { writeProofCertificate }] = await Promise.all([
        import('../report/certify.js'),
        import('../report/proof.js'),
      ]);
      const [{ writeCertifyReport }, { writeCertifyPlots }] = await Promise.all([
        import('../report/certifyHtml.js'),
        import('../report/certifyPlots.js'),
      ]);
      const showBar = !opts.json && opts.progress !== false && process.stderr.isTTY === true;
      // one bar per phase; certify reports `done` before each item, so a phase is complete (its
      // bar full) when the next one starts or certify returns
      let bar: ProgressBar | undefined;
      let phase = '';
      const onProgress = showBar
        ? (p: string, done: number, total: number) => {
            if (p !== phase) {
              bar?.finish();
              phase = p;
              bar = new ProgressBar(`${p.padEnd(28).slice(0, 28)} [{bar}] {value}/{total}`);
            }
            bar!.update(done, total);
          }
        : undefined;
      checkInputPaths({ '--graph': opts.graph, '--evidence': opts.evidence, '--system': opts.system });
      checkCommandDestinations({ report: opts.report, plot: opts.plot, files: { '--proof': opts.proof } });
      try {
        if (opts.from !== undefined && opts.from !== 'stop' && opts.from !== 'theta0')
          throw new ArgumentError('--from', opts.from, "must be 'stop' or 'theta0'");
        const report = await certifyReport(opts as CertifyRequest, onProgress);
        bar?.finish();
        if (opts.threads !== undefined) printThreads(report.environment?.threads);
        // the files first: one that fails then leaves no half output on stdout
        if (opts.plot !== undefined) await writeCertifyPlots(opts.plot, report, process.stderr);
        if (opts.report !== undefined) await writeCertifyReport(opts.report, report, process.stderr);
        if (opts.proof !== undefined) {
          const certificate = certificateOf(report);
          if (certificate) await writeProofCertificate(opts.proof, certificate);
          else process.stderr.write(`--proof: no contraction block was proved; ${opts.proof} not written\n`);
        }
        if (opts.json) printJson(report);
        else process.stdout.write(renderCertifyText(report) + '\n');
      } finally {
        bar?.stop();
      }
    });
}
