/**
 * Writing plots to a folder as SVG and PNG (the CLI's `--plot DIR`). Every PNG is rendered
 * before anything is written, and each file is written under a temporary name and renamed, so a
 * failure leaves no half-written file.
 */
import { mkdirSync } from 'node:fs';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import { statOrUndefined } from '../util/destinations.js';
import { join } from 'node:path';
import { ArgumentError, ArgumentTypeError, isArgumentError } from '../util/errors.js';
import { svgToPng, type PngOptions } from './render.js';

/** A named plot: `name` becomes the file stem (`name.svg`, `name.png`). */
export interface NamedPlot {
  name: string;
  svg: string;
}

/** Paths written for one plot, with the PNG's pixel size. */
export interface WrittenPlot {
  name: string;
  svgPath: string;
  pngPath: string;
  width: number;
  height: number;
}

const STEM = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Checks, before any work, that `dir` can take plot files: a non-empty path that is a folder or
 * does not exist yet (it is created when the plots are written).
 * @throws {ArgumentTypeError | ArgumentError} named `argument` (default `--plot`).
 */
export function checkPlotDir(dir: unknown, argument = '--plot'): string {
  if (typeof dir !== 'string' || dir.length === 0) throw new ArgumentTypeError(argument, dir, 'must be a folder path');
  if (statOrUndefined(dir)?.isDirectory() === false)
    throw new ArgumentError(argument, dir, 'exists and is not a folder');
  return dir;
}

/**
 * Writes each plot as `DIR/name.svg` and `DIR/name.png`, creating DIR (and parents) if needed.
 * @throws {ArgumentTypeError | ArgumentError} `dir` not a non-empty string or an existing
 *   non-directory; a name that is not a plain file stem (letters, digits, `.`, `_`, `-`) or is
 *   repeated; an SVG resvg cannot render; a plot's file name taken by a folder or another
 *   non-file. Nothing is written when any check fails.
 * Cost: one PNG rendering per plot (see {@link svgToPng}).
 * @example
 * ```ts
 * writePlotFiles('plots', [{ name: 'trajectory', svg }]); // plots/trajectory.svg, plots/trajectory.png
 * ```
 */
export function writePlotFiles(dir: string, plots: readonly NamedPlot[], options: PngOptions = {}): WrittenPlot[] {
  if (typeof dir !== 'string' || dir.length === 0) throw new ArgumentTypeError('dir', dir, 'must be a folder path');
  if (!Array.isArray(plots)) throw new ArgumentTypeError('plots', plots, 'must be an array of { name, svg }');
  const seen = new Set<string>();
  plots.forEach((p, i) => {
    if (typeof p?.name !== 'string' || !STEM.test(p.name))
      throw new ArgumentError(`plots[${i}].name`, p?.name, 'must be a file stem of letters, digits, ".", "_" or "-"');
    if (seen.has(p.name)) throw new ArgumentError(`plots[${i}].name`, p.name, 'is used twice');
    seen.add(p.name);
  });
  // a folder, or nothing yet (it is created below)
  if (statOrUndefined(dir)?.isDirectory() === false) throw new ArgumentError('dir', dir, 'exists and is not a folder');
  const rendered = plots.map((p, i) => {
    if (typeof p.svg !== 'string') throw new ArgumentTypeError(`plots[${i}].svg`, p.svg, 'must be an SVG string');
    return { ...p, image: svgToPng(p.svg, options) };
  });
  // every target is a file or nothing yet: a folder (or other entry) in the way of the last plot
  // would fail its write after the first plots were written
  for (const p of rendered)
    for (const ext of ['svg', 'png']) {
      const st = statOrUndefined(join(dir, `${p.name}.${ext}`));
      if (st && !st.isFile())
        throw new ArgumentError('dir', dir, `holds ${p.name}.${ext}, which is not a file (a plot is written there)`);
    }
  mkdirSync(dir, { recursive: true });
  const written: WrittenPlot[] = [];
  for (const p of rendered) {
    const svgPath = join(dir, `${p.name}.svg`);
    const pngPath = join(dir, `${p.name}.png`);
    writeFileAtomicSync(svgPath, p.svg);
    writeFileAtomicSync(pngPath, p.image.png);
    written.push({ name: p.name, svgPath, pngPath, width: p.image.width, height: p.image.height });
  }
  return written;
}

/**
 * Writes named plots to `dir` as SVG and PNG (see {@link writePlotFiles}), then lists the written
 * paths on `log` when given (the CLI passes stderr, keeping stdout for the report). Errors about
 * the folder name the CLI flag (`argument`, default `--plot`).
 * @throws {ArgumentError | ArgumentTypeError} bad folder; nothing is written then.
 */
export function writeNamedPlots(
  dir: string,
  plots: readonly NamedPlot[],
  log?: { write(s: string): unknown },
  argument = '--plot',
): WrittenPlot[] {
  try {
    const written = writePlotFiles(dir, plots);
    for (const p of written) log?.write(`wrote ${p.svgPath} and ${p.pngPath}\n`);
    return written;
  } catch (e) {
    if (isArgumentError(e) && e.argument === 'dir') {
      const Cls = e instanceof ArgumentTypeError ? ArgumentTypeError : ArgumentError;
      throw new Cls(argument, dir, e.message.slice(e.message.indexOf(': ') + 2));
    }
    throw e;
  }
}
