/**
 * Plots rendered without a browser: Vega-Lite → vega headless view → SVG, and SVG → PNG with
 * resvg and DejaVu Sans. Each plot function takes plain records, so every command can reuse it.
 */
export {
  renderVegaLiteToSvg,
  svgToPng,
  findPlotFont,
  DEJAVU_SANS_CANDIDATES,
  PLOT_FONT_FAMILY,
  type VegaLiteSpec,
  type RenderedSvg,
  type PngImage,
  type PngOptions,
} from './render.js';
export { frame, PLOT_WIDTH, PLOT_HEIGHT, THRESHOLD_COLOR, STOP_COLOR, type PlotFrameOptions } from './theme.js';
export {
  trajectorySpec,
  plotTrajectory,
  OMEGA_LABEL,
  windowedLabel,
  type TrajectoryPoint,
  type TrajectoryPlotOptions,
} from './trajectory.js';
export {
  spectrumSpec,
  plotSpectrum,
  spectrumFloor,
  SPECTRUM_CLASSES,
  type SpectrumPoint,
  type SpectrumPlotOptions,
} from './spectrum.js';
export { fitPowerLaw, type PowerLawFit } from './powerLaw.js';
export {
  scalingSpec,
  plotScaling,
  fitScaling,
  type ScalingPoint,
  type ScalingPlotOptions,
  type SeriesFit,
} from './scaling.js';
export {
  accuracySpec,
  plotAccuracy,
  ACCURACY_TEXT_LABEL_LIMIT,
  type AccuracyPoint,
  type AccuracyPlotOptions,
} from './accuracy.js';
export { writePlotFiles, writeNamedPlots, checkPlotDir, type NamedPlot, type WrittenPlot } from './files.js';
export { marginSpec, plotMargins, NONPOSITIVE_LABEL, type MarginPoint, type MarginPlotOptions } from './margin.js';
