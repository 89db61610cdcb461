/**
 * `ordergap run`: parses the options, prints {@link runReport}'s result (text or `--json`) and
 * writes the plots on request.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { renderRunText, runReport, type RunReportOptions } from '../report/run.js';
import { writeRunPlots } from '../report/runPlots.js';
import {
  checkCommandDestinations,
  checkInputPaths,
  parseIntAtLeast,
  parsePositive,
  parseSeed,
  printJson,
} from './options.js';

function parseUnitOpen(value: string): number {
  const x = Number(value);
  if (value.trim() === '' || !(x > 0 && x < 1)) throw new InvalidArgumentError(`'${value}' must lie in (0, 1).`);
  return x;
}

/** Registers `ordergap run` on the program. */
export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description(
      'Algorithm 1 with the reference graph operators on the default scenario (or --graph/--evidence): trajectory, stop, final state in words',
    )
    .option('--graph <file>', 'graph JSON file (with --evidence)')
    .option('--evidence <file>', 'evidence pool JSON file (with --graph)')
    .option('--epsilon <number>', 'stopping threshold ε', parsePositive)
    .option('--window <n>', 'window length w', parseIntAtLeast(1))
    .option('--max-steps <n>', 'step budget Tmax', parseIntAtLeast(1))
    .option('--seed <n>', 'seed of the evidence sampler', parseSeed)
    .option('--delta <number>', 'consistency / openness threshold δ in (0, 1) (default 0.5)', parseUnitOpen)
    .option('--json', 'print one JSON document (numbers unrounded)')
    .option('--plot <dir>', 'also write the trajectory plot to DIR as SVG and PNG (paths on stderr)')
    .action(async (opts: RunReportOptions & { json?: boolean; plot?: string }) => {
      checkInputPaths({ '--graph': opts.graph, '--evidence': opts.evidence });
      checkCommandDestinations({ plot: opts.plot });
      const report = await runReport(opts);
      if (opts.plot !== undefined) await writeRunPlots(opts.plot, report, process.stderr);
      if (opts.json) printJson(report);
      else process.stdout.write(renderRunText(report) + '\n');
    });
}
