import { describe, expect, it } from 'vitest';
import { demoReport } from '../../src/report/demo.js';
import { svgToPng } from '../../src/plot/render.js';
import { STOP_COLOR, THRESHOLD_COLOR } from '../../src/plot/theme.js';
import { OMEGA_LABEL, plotTrajectory, trajectorySpec, windowedLabel } from '../../src/plot/trajectory.js';
import { countColor, inkStats } from './png.js';
import { axisLabels, groupOf, seriesGeometry, seriesUnder, svgItems, svgTexts, textBox } from './svg.js';

// Positions are compared in SVG pixels; vega places marks at float coordinates and the axis
// group sits half a pixel off the plot area (crisp lines), so 1 px is the tolerance.
const PX = 1;

/** Maps a data value to its pixel position by interpolating between the first and last labels. */
function interpolate(labels: { text: string; pos: number }[], value: number): number {
  const a = labels[0]!;
  const b = labels[labels.length - 1]!;
  const va = Number(a.text);
  const vb = Number(b.text);
  return a.pos + ((value - va) / (vb - va)) * (b.pos - a.pos);
}

describe('trajectory plot on the Sec. 9.2 run (computed by demoReport)', async () => {
  const report = demoReport();
  const { epsilon, window } = report.setting;
  const stop = report.orderGapStop.step;
  const plot = await plotTrajectory(report.trajectory, { epsilon, stopStep: stop, window, title: 'Sec. 9.2' });

  it('draws every Ω_t and every Ω̂_t,w as a point at the height of its value', () => {
    const symbols = svgItems(groupOf(plot.svg, 'mark-symbol role-mark')).filter((i) => i.aria?.startsWith('step t:'));
    const yLabels = axisLabels(plot.svg, 'Y');
    const xLabels = axisLabels(plot.svg, 'X');
    expect(yLabels.length).toBeGreaterThan(2);
    const expected = report.trajectory.flatMap((r) => [
      { t: r.t, v: r.omega, series: OMEGA_LABEL },
      ...(r.windowed === null ? [] : [{ t: r.t, v: r.windowed, series: windowedLabel(window) }]),
    ]);
    expect(symbols).toHaveLength(expected.length);
    for (const e of expected) {
      const s = symbols.find((i) => i.aria!.startsWith(`step t: ${e.t};`) && i.aria!.endsWith(`series: ${e.series}`));
      expect(s, `${e.series} at t=${e.t}`).toBeDefined();
      expect(Math.abs(s!.y - interpolate(yLabels, e.v))).toBeLessThan(PX);
      expect(Math.abs(s!.x - interpolate(xLabels, e.t))).toBeLessThan(PX);
    }
  });

  it('draws ε as a horizontal line at height ε and the stop as a vertical line at step 4', () => {
    const items = svgItems(plot.svg);
    const epsLine = items.find((i) => i.tag === 'line' && i.aria === `epsilon: ${epsilon}`);
    const stopLine = items.find((i) => i.tag === 'line' && i.aria === `t: ${stop}`);
    expect(epsLine).toBeDefined();
    expect(stopLine).toBeDefined();
    expect(Math.abs(epsLine!.y - interpolate(axisLabels(plot.svg, 'Y'), epsilon))).toBeLessThan(PX);
    expect(Math.abs(stopLine!.x - interpolate(axisLabels(plot.svg, 'X'), stop))).toBeLessThan(PX);
    const texts = svgTexts(plot.svg);
    expect(texts).toContain('ε = 0.025');
    expect(texts).toContain(`stop at t = ${stop}`);
    expect(texts).toContain(OMEGA_LABEL);
    expect(texts).toContain(windowedLabel(window));
    expect(texts).toContain('Sec. 9.2');
  });

  it('its PNG is the scaled size, not blank, and shows the ε and stop colours', () => {
    const img = svgToPng(plot.svg, { scale: 2 });
    expect([img.width, img.height]).toEqual([plot.width * 2, plot.height * 2]);
    const stats = inkStats(img.pixels);
    expect(stats.inkFraction).toBeGreaterThan(0.02);
    expect(stats.lumaVariance).toBeGreaterThan(100);
    // the 2-px stop line over the 280-px plot height, at scale 2: hundreds of pixels
    expect(countColor(img.pixels, STOP_COLOR)).toBeGreaterThan(500);
    expect(countColor(img.pixels, THRESHOLD_COLOR)).toBeGreaterThan(200);
  });

  it('the ε label covers no point and no segment of either series', () => {
    const box = textBox(plot.svg, 'ε = 0.025');
    expect(seriesUnder(plot.svg, box)).toEqual({ points: 0, segments: 0 });
  });

  it('the coverage-failure run (stops on Ω̂ without converging) plots with its own stop', async () => {
    const cf = report.coverageFailure;
    expect(cf.stop.reason).toBe('order-gap');
    const p = await plotTrajectory(cf.trajectory, { epsilon, stopStep: cf.stop.step, window });
    expect(svgTexts(p.svg)).toContain(`stop at t = ${cf.stop.step}`);
  });
});

describe('trajectorySpec', () => {
  const pts = [
    { t: 1, omega: 0.5 },
    { t: 2, omega: 0.25, windowed: 0.375 },
    { t: 3, omega: 0.125, windowed: 0.1875 },
  ];

  it('without a stop step there is no stop marker', async () => {
    const p = await plotTrajectory(pts, { epsilon: 0.2 });
    expect(svgTexts(p.svg).some((t) => t.startsWith('stop at'))).toBe(false);
    expect(svgTexts(p.svg)).toContain('ε = 0.2');
  });

  it('a 250 000-step run (more steps than a spread call holds) gets its stop label left of a final stop', () => {
    const long = Array.from({ length: 250_000 }, (_, i) => ({ t: i + 1, omega: 1 / (i + 1) }));
    const labelOf = (spec: unknown) =>
      JSON.stringify(spec).includes('"align":"right","baseline":"top","dx":-4') ? 'left' : 'right';
    expect(labelOf(trajectorySpec(long, { epsilon: 0.1, stopStep: 250_000 }))).toBe('left');
    expect(labelOf(trajectorySpec(long, { epsilon: 0.1, stopStep: 1000 }))).toBe('right');
  });

  it('order-gaps around 1e-22 get distinct y labels, each the value of its tick (and the usual decimals stay)', async () => {
    const tiny = await plotTrajectory(
      [
        { t: 1, omega: 6e-22 },
        { t: 2, omega: 3e-22 },
        { t: 3, omega: 1e-22 },
      ],
      { epsilon: 1e-22 },
    );
    const labels = axisLabels(tiny.svg, 'Y').map((l) => l.text);
    expect(labels.length).toBeGreaterThan(2);
    expect(new Set(labels).size).toBe(labels.length);
    for (const l of labels.slice(1)) expect(Number(l.replace('−', '-'))).toBeGreaterThan(0);
    expect(Number(labels[0])).toBe(0);
    const usual = await plotTrajectory(pts, { epsilon: 0.2 });
    expect(axisLabels(usual.svg, 'Y').map((l) => l.text)).toEqual(['0', '0.1', '0.2', '0.3', '0.4', '0.5']);
  });

  it('a log scale puts decades at equal distances', async () => {
    const p = await plotTrajectory(
      [
        { t: 1, omega: 1 },
        { t: 2, omega: 0.1 },
        { t: 3, omega: 0.01 },
      ],
      { epsilon: 0.05, logScale: true },
    );
    const ys = svgItems(groupOf(p.svg, 'mark-symbol role-mark'))
      .filter((i) => i.aria?.startsWith('step t:'))
      .map((i) => i.y);
    expect(ys).toHaveLength(3);
    expect(Math.abs(ys[1]! - ys[0]! - (ys[2]! - ys[1]!))).toBeLessThan(PX);
  });

  describe('the ε label covers no point and no segment, whatever the shape of the run', () => {
    const steps = (f: (t: number) => number, n = 12) =>
      Array.from({ length: n }, (_, k) => ({ t: k + 1, omega: f(k + 1), windowed: k > 0 ? f(k + 0.5) : null }));
    const shapes: [string, { t: number; omega: number; windowed?: number | null }[], number, boolean][] = [
      ['settling just above ε at the right end', steps((t) => 0.01 * (1.08 + 2 * 0.6 ** t)), 0.01, false],
      ['falling through ε at the last steps', steps((t) => 0.2 * 0.7 ** t), 0.01, false],
      ['flat on ε', steps(() => 0.05), 0.05, false],
      ['rising through ε at the right edge', steps((t) => 0.001 * 1.8 ** t), 0.2, false],
      ['oscillating about ε, log scale', steps((t) => 0.01 * 10 ** Math.sin(t)), 0.01, true],
      ['a single step at ε', [{ t: 1, omega: 0.3 }], 0.3, false],
    ];
    it.each(shapes)('%s', async (_name, points, epsilon, logScale) => {
      const p = await plotTrajectory(points, { epsilon, window: 2, logScale, stopStep: points.at(-1)!.t });
      const box = textBox(p.svg, `ε = ${epsilon}`);
      // the check itself sees the series: a box around the first point covers it
      const first = seriesGeometry(p.svg).points[0]!;
      const around = { left: first.x - 1, right: first.x + 1, top: first.y - 1, bottom: first.y + 1 };
      expect(seriesUnder(p.svg, around).points).toBeGreaterThan(0);
      expect(seriesUnder(p.svg, box)).toEqual({ points: 0, segments: 0 });
      // and it stays level with the ε line: the line's height lies within the label's box
      const line = svgItems(p.svg).find((i) => i.tag === 'line' && i.aria === `epsilon: ${epsilon}`)!;
      expect(line.y).toBeGreaterThan(box.top);
      expect(line.y).toBeLessThan(box.bottom);
    });
  });

  it('rejects bad data and options, naming the argument, index and field', () => {
    expect(() => trajectorySpec([], { epsilon: 1 })).toThrow(/^points = an array of length 0: must not be empty/);
    expect(() => trajectorySpec([{ t: 1, omega: NaN }], { epsilon: 1 })).toThrow(/^points\[0\]\.omega = NaN/);
    expect(() => trajectorySpec([{ t: 1, omega: -1 }], { epsilon: 1 })).toThrow(
      /^points\[0\]\.omega = -1: must be >= 0/,
    );
    expect(() => trajectorySpec([{ t: 1.5, omega: 1 }], { epsilon: 1 })).toThrow(/^points\[0\]\.t = 1\.5/);
    expect(() => trajectorySpec(pts, { epsilon: 0 })).toThrow(/^options\.epsilon = 0: must be > 0/);
    expect(() => trajectorySpec(pts, { epsilon: 1, stopStep: 7 })).toThrow(/^options\.stopStep = 7: must be the step/);
    expect(() => trajectorySpec(pts, { epsilon: 1, window: 0 })).toThrow(/^options\.window = 0/);
    expect(() => trajectorySpec([{ t: 1, omega: 0 }], { epsilon: 1, logScale: true })).toThrow(/log-scaled/);
    expect(() => trajectorySpec([{ t: 1, omega: 1, windowed: 'x' as unknown as number }], { epsilon: 1 })).toThrow(
      /^points\[0\]\.windowed = "x": must be a number/,
    );
  });
});
