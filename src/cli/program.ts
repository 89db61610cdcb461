/**
 * The `ordergap` command-line program: a thin shell over the library. Every command can print
 * JSON (`--json`); a bad flag or value exits with status 2 and a one-line message naming it; any
 * other error exits 1 with a message (a stack trace only with `--debug`).
 */
import { Command, CommanderError } from 'commander';
import { isArgumentError } from '../util/errors.js';
import { demoReport, renderDemoText, type DemoReportOptions } from '../report/demo.js';
import { checkCommandDestinations, printJson, runParamOptions } from './options.js';
import { destinationFlagOf, resetDestinations } from '../util/destinations.js';
import { registerCompareCommand } from './compare.js';
import { registerRunCommand } from './run.js';
import { registerCertifyCommand } from './certify.js';
import { registerCheckProofCommand } from './checkProof.js';
import { registerAnswerCommand } from './answer.js';
import { CommandStatus } from './status.js';
import { writeDemoPlots } from '../report/demoPlots.js';

/** Version printed by `--version` (kept in step with package.json by a test). */
export const VERSION = '0.1.0';

/** Exit status for usage errors (bad flag or value). */
export const EXIT_USAGE = 2;
/** Exit status for any other failure. */
export const EXIT_FAILURE = 1;

/** The first line of a message (the CLI prints one line per error; `--debug` adds the stack). */
function oneLine(message: string): string {
  return message.split('\n')[0]!.trim();
}

/**
 * A message of ours on one line, whole: the line breaks it holds (an excerpt of a bad input file
 * in a JSON parser's message, a value with a break) written `\n`.
 */
function wholeLine(message: string): string {
  return message.trim().replace(/\r?\n/g, '\\n');
}

/**
 * Commander's message on one line: the message with the line breaks a value brought in written
 * `\n` (`--question $'\n'` is quoted whole, not cut at the break), and its suggestion
 * "(Did you mean …?)" where it makes one.
 */
function commanderLine(message: string): string {
  const lines = message.trim().split('\n');
  const isSuggestion = (l: string): boolean => /^\(Did you mean .*\?\)$/.test(l.trim());
  const text = lines.filter((l) => !isSuggestion(l)).join('\\n');
  const suggestion = lines.find(isSuggestion);
  return suggestion === undefined ? text : `${text} ${suggestion.trim()}`;
}

/** Builds the program (exported for tests; `main.ts` runs it). */
export function createProgram(): Command {
  const program = new Command();
  program
    .name('ordergap')
    .description('Order-gap termination for recursive reasoning systems (arXiv 2605.06690).')
    .version(VERSION)
    .option('--debug', 'print stack traces on errors')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({
      outputError: (str, write) => write(commanderLine(str) + '\n'),
    });

  const demo = program
    .command('demo')
    .description(
      'the closed-form illustration of Sec. 9.2: trajectory, where Algorithm 1 stops, budget run, coverage failure',
    );
  runParamOptions(demo, {
    epsilon: 'stopping threshold ε',
    window: 'window length w',
    maxSteps: 'step budget Tmax',
    seed: 'seed of the evidence sampler (coverage-failure variant)',
  })
    .option('--json', 'print one JSON document (numbers unrounded)')
    .option('--plot <dir>', 'also write the trajectory plots to DIR as SVG and PNG (paths on stderr)')
    .action(async (opts: DemoReportOptions & { json?: boolean; plot?: string }) => {
      checkCommandDestinations({ plot: opts.plot });
      const report = demoReport(opts);
      if (opts.plot !== undefined) await writeDemoPlots(opts.plot, report, process.stderr);
      if (opts.json) printJson(report);
      else process.stdout.write(renderDemoText(report) + '\n');
    });

  registerCompareCommand(program);
  registerRunCommand(program);
  registerCertifyCommand(program);
  registerCheckProofCommand(program);
  registerAnswerCommand(program);
  return program;
}

/**
 * The arguments commander is to parse. The program's own options take no value, so its first
 * operand is the command (the second after `help`); when that names no command, only it is kept,
 * so that commander reports the unknown command (exit 2) instead of printing the general help
 * for a `--help` after it, or for `help NOSUCH`.
 */
function commandLine(program: Command, argv: readonly string[]): string[] {
  const operands = argv.slice(2).filter((a) => !a.startsWith('-'));
  const named = operands[0] === 'help' ? operands[1] : operands[0];
  const known = named === undefined || program.commands.some((c) => c.name() === named || c.aliases().includes(named));
  return known ? [...argv] : [...argv.slice(0, 2), named];
}

/**
 * Parses `argv` (as process.argv) and runs the command; returns the exit status instead of
 * exiting, so tests can call it. `--help`, `help` and `help COMMAND` print the help on stdout
 * (exit 0); no command at all prints it on stderr as a usage error (exit 2).
 */
export async function runCli(argv: readonly string[]): Promise<number> {
  const program = createProgram();
  const debug = argv.includes('--debug');
  resetDestinations();
  try {
    await program.parseAsync(commandLine(program, argv));
    return 0;
  } catch (e) {
    if (e instanceof CommandStatus) return e.status; // the command printed its result
    if (e instanceof CommanderError) {
      // the help asked for, or the version: exit 0; the help shown for a missing command: a usage error
      const shown = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(e.code);
      if (shown && e.exitCode === 0) return 0;
      // commander already printed its message (one line) or the help
      return EXIT_USAGE;
    }
    if (isArgumentError(e)) {
      process.stderr.write(`ordergap: error: ${wholeLine(e.message)}\n`);
      if (debug) process.stderr.write(`${(e as Error).stack}\n`);
      return EXIT_USAGE;
    }
    const err = e as NodeJS.ErrnoException;
    const flag = typeof err?.path === 'string' ? destinationFlagOf(err.path) : undefined;
    if (flag !== undefined) {
      // a write to a checked destination failed after all (disk full, removed meanwhile, ...)
      process.stderr.write(`ordergap: error: ${flag} = ${JSON.stringify(err.path)}: cannot be written (${err.code})\n`);
      if (debug) process.stderr.write(`${err.stack}\n`);
      return EXIT_USAGE;
    }
    process.stderr.write(`ordergap: error: ${oneLine(err?.message ?? String(e))}\n`);
    if (debug) process.stderr.write(`${err?.stack}\n`);
    return EXIT_FAILURE;
  }
}
