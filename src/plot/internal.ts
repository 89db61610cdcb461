/**
 * The plot names below the public surface, for `ordergap/internal` (src/internal.ts): no stability
 * is promised. Re-exports only.
 */
export {
  renderVegaLiteToSvg,
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
  OMEGA_LABEL,
  windowedLabel,
  type TrajectoryPoint,
  type TrajectoryPlotOptions,
} from './trajectory.js';
export {
  spectrumSpec,
  spectrumFloor,
  SPECTRUM_CLASSES,
  type SpectrumPoint,
  type SpectrumPlotOptions,
} from './spectrum.js';
export { fitPowerLaw, type PowerLawFit } from './powerLaw.js';
export { scalingSpec, type ScalingPoint, type ScalingPlotOptions, type SeriesFit } from './scaling.js';
export {
  ACCURACY_FRONT_LABEL,
  accuracySpec,
  ACCURACY_TEXT_LABEL_LIMIT,
  type AccuracyPoint,
  type AccuracyPlotOptions,
} from './accuracy.js';
export { writeNamedPlots, checkPlotDir } from './files.js';
export { marginSpec, NONPOSITIVE_LABEL, type MarginPlotOptions } from './margin.js';
