/**
 * The public `plot` namespace: the charts of the reports (trajectory, spectrum, margins, scaling,
 * accuracy against samples) as SVG, PNG from SVG, and the one writer of plot files. Re-exports only.
 */
export { svgToPng } from '../plot/render.js';
export { plotTrajectory } from '../plot/trajectory.js';
export { plotSpectrum } from '../plot/spectrum.js';
export { plotScaling, fitScaling } from '../plot/scaling.js';
export { plotAccuracy } from '../plot/accuracy.js';
export { plotMargins, type MarginPoint } from '../plot/margin.js';
export { writePlotFiles, type NamedPlot, type WrittenPlot } from '../plot/files.js';
