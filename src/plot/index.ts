/**
 * The public `plot` namespace: the charts of the reports (trajectory, spectrum, margins, scaling,
 * accuracy against samples) as SVG, PNG from SVG, and the one writer of plot files. Re-exports only.
 */
export { svgToPng } from './render.js';
export { plotTrajectory } from './trajectory.js';
export { plotSpectrum } from './spectrum.js';
export { plotScaling, fitScaling } from './scaling.js';
export { plotAccuracy } from './accuracy.js';
export { plotMargins, type MarginPoint } from './margin.js';
export { writePlotFiles, type NamedPlot, type WrittenPlot } from './files.js';
