/**
 * `ordergap compare`: parses the options, prints {@link compareReport}'s result (text or
 * `--json`).
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import {
  compareReport,
  parseCompareRule,
  renderCompareText,
  type CompareReportOptions,
  type CompareRule,
} from '../report/compare.js';
import { defaultRuleSpecs, listRules } from '../stopping/registry.js';
import { isArgumentError } from '../util/errors.js';
import {
  checkCommandDestinations,
  checkInputPaths,
  parseIntAtLeast,
  parseSeed,
  printJson,
  printThreads,
  threadsOption,
} from './options.js';

function parseRule(value: string, previous: CompareRule[] | undefined): CompareRule[] {
  try {
    return [...(previous ?? []), parseCompareRule(value)];
  } catch (e) {
    if (isArgumentError(e)) throw new InvalidArgumentError(e.message);
    throw e;
  }
}

/** Adds `compare` to the program. */
export function registerCompareCommand(program: Command): void {
  const command = program
    .command('compare')
    .description(
      'replay recorded samples (JSONL) under stopping rules and compare them, paired, against the full budget',
    )
    .requiredOption('--samples <file>', 'JSONL: {"question", "answer", "generated_answer": [...]} per line')
    .option(
      '--rules <spec>',
      'a rule as name[:key=value,...] (repeat the flag for several); parameters left out take the defaults listed below, e.g. order-gap or beta:threshold=0.99; all: every rule below at its defaults (with other --rules: those too, each configuration once)',
      parseRule,
    )
    .option('--repeats <n>', 'R seeded shuffles of each item (default 10)', parseIntAtLeast(1))
    .option('--seed <n>', 'seed of the shuffles (default 0)', parseSeed)
    .option('--budget <n>', 'at most N samples per item (default: the most any item has)', parseIntAtLeast(1))
    .option('--extractor <name>', 'answer-is (default) or numeric')
    .option(
      '--plot <file.svg|dir>',
      'write the plot of accuracy against mean samples: to FILE.svg, or to DIR as SVG and PNG',
    )
    .option('--record <file.json>', 'save the run record (replays to identical figures)')
    .option('--json', 'print one JSON document (numbers unrounded)');
  threadsOption(command)
    .addHelpText(
      'after',
      [
        '',
        'Rules (name: what it tests (parameter=default, ...); "off" = unused unless given):',
        ...listRules().map((r) => `  ${r.name.padEnd(13)} ${r.description}`),
        '',
        'Without --rules (N = --budget):',
        ...defaultRuleSpecs(0).map(
          (r) =>
            `  ${r.name}${Object.keys(r.params).length ? ':' : ''}${Object.entries(r.params)
              .map(([k, v]) => `${k}=${v === 0 ? 'N' : String(v)}`)
              .join(',')}`,
        ),
      ].join('\n'),
    )
    .action(async (opts: CompareReportOptions & { json?: boolean }) => {
      checkInputPaths({ '--samples': opts.samples });
      checkCommandDestinations({ plot: opts.plot, record: opts.record }, { svgFile: true });
      const report = await compareReport(opts);
      printThreads(report.threads);
      if (opts.json) printJson(report);
      else process.stdout.write(renderCompareText(report) + '\n');
    });
}
