/**
 * `ordergap check-proof FILE`: re-checks a proof certificate written by `certify --proof` with
 * the independent checker ({@link checkProofReport}), against the system named by the same
 * options as `certify`. Exit status 0 when every claim holds, 1 when the certificate is
 * rejected, 2 for a bad flag or value.
 */
import type { Command } from 'commander';
import type { CheckProofRequest } from '../report/proof.js';
import { checkInputPaths, printJson, systemOptions } from './options.js';
import { CommandStatus } from './status.js';

/** Registers `ordergap check-proof` on the program. */
export function registerCheckProofCommand(program: Command): void {
  const command = program
    .command('check-proof')
    .argument('<file>', 'the certificate (JSON) written by certify --proof')
    .description('re-check a proof certificate: every enclosure re-evaluated, every inequality recomputed');
  systemOptions(command)
    .option('--json', 'print one JSON document')
    .action(async (file: string, opts: Omit<CheckProofRequest, 'certificate'> & { json?: boolean }) => {
      checkInputPaths({ file, '--graph': opts.graph, '--evidence': opts.evidence, '--system': opts.system });
      const { json, ...request } = opts;
      const { checkProofReport, renderProofCheck } = await import('../report/proof.js'); // loaded when it runs
      const result = await checkProofReport({ ...request, certificate: file });
      if (json) printJson(result);
      else process.stdout.write(renderProofCheck(result) + '\n');
      if (!result.valid) throw new CommandStatus(1);
    });
}
