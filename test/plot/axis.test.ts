import { fc, test as fcTest } from '@fast-check/vitest';
import { formatLocale } from 'vega';
import { describe, expect, it } from 'vitest';
import { accuracySpec } from '../../src/plot/accuracy.js';
import { accuracyMinSpan, linearAxis } from '../../src/plot/axis.js';

/** Labels are distinct and increasing: parsed back, each is larger than the one before. */
function expectDistinctIncreasing(labels: string[], parse: (s: string) => number): void {
  expect(new Set(labels).size, labels.join(' ')).toBe(labels.length);
  const values = labels.map(parse);
  for (let k = 1; k < values.length; k++) expect(values[k]!, labels.join(' ')).toBeGreaterThan(values[k - 1]!);
}

const percent = (s: string): number => Number(s.replace('%', ''));

describe('linearAxis', () => {
  fcTest.prop([
    fc.double({ min: -1e6, max: 1e6, noNaN: true }),
    fc.double({ min: 0, max: 1e6, noNaN: true }),
    fc.double({ min: 1e-12, max: 1e6, noNaN: true }),
  ])('for any data range: ≥ 2 ticks, labels at the step’s decimals distinct and increasing', (lo, width, minSpan) => {
    const hi = lo + width;
    const axis = linearAxis(lo, hi, { minSpan });
    expect(axis.ticks.length).toBeGreaterThanOrEqual(2);
    expectDistinctIncreasing(
      axis.ticks.map((t) => t.toFixed(axis.decimals)),
      Number,
    );
    // the domain holds the data, its ends are ticks, and it is at least minSpan wide (up to the
    // relative floor of 1e-9 of the magnitude, which can only widen it)
    expect(axis.domain[0]).toBeLessThanOrEqual(lo);
    expect(axis.domain[1]).toBeGreaterThanOrEqual(hi);
    expect(axis.domain).toEqual([axis.ticks[0], axis.ticks.at(-1)]);
    expect(axis.domain[1] - axis.domain[0]).toBeGreaterThanOrEqual(minSpan * (1 - 1e-12));
  });

  fcTest.prop([fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })])(
    'inside bounds [0, 1] the domain never leaves them',
    (a, b) => {
      const [lo, hi] = a <= b ? [a, b] : [b, a];
      const axis = linearAxis(lo, hi, { minSpan: 0.05, bounds: [0, 1] });
      expect(axis.domain[0]).toBeGreaterThanOrEqual(0);
      expect(axis.domain[1]).toBeLessThanOrEqual(1);
      expect(axis.domain[0]).toBeLessThanOrEqual(lo);
      expect(axis.domain[1]).toBeGreaterThanOrEqual(hi);
      expect(axis.ticks.length).toBeGreaterThanOrEqual(2);
    },
  );

  it('ends the domain at 0, not −0, when the data end just below zero', () => {
    // found by the property above: Math.ceil(−1e-9) is −0, and the domain's upper end read −0
    // while the tick there is 0
    const axis = linearAxis(-4.999999995e-13, -4.999999995e-13, { minSpan: 1.0000000000000002e-12 });
    expect(Object.is(axis.domain[1], 0)).toBe(true);
    expect(axis.domain).toEqual([axis.ticks[0], axis.ticks.at(-1)]);
  });

  it('rejects bad arguments, naming them', () => {
    expect(() => linearAxis(1, 0, { minSpan: 1 })).toThrow(/^lo = 1: must be <= hi/);
    expect(() => linearAxis(0, 1, { minSpan: 0 })).toThrow(/^options\.minSpan = 0/);
    expect(() => linearAxis(0, 1, { minSpan: 1, padding: -1 })).toThrow(/^options\.padding = -1/);
    expect(() => linearAxis(0, 2, { minSpan: 1, bounds: [0, 1] })).toThrow(/^options\.bounds/);
    expect(() => linearAxis(0, 0, { minSpan: 1e-40 })).toThrow(/^options\.minSpan = 1e-40: gives a tick step/);
  });
});

describe('the accuracy axis', () => {
  /** The y axis of an accuracy plot's specification: its domain and the labels vega writes for its ticks. */
  function yAxis(spec: ReturnType<typeof accuracySpec>) {
    const layers = (spec as { layer?: { encoding: unknown }[]; encoding?: unknown }).layer;
    const enc = (layers ? layers[0]!.encoding : (spec as { encoding: unknown }).encoding) as {
      y: { scale: { domain: [number, number] }; axis: { values: number[]; format: string } };
    };
    // vega's default number locale, which its axes use (the typings declare the call as void)
    const locale = (formatLocale as unknown as () => { format(spec: string): (x: number) => string })();
    const fmt = locale.format(enc.y.axis.format);
    return { domain: enc.y.scale.domain, labels: enc.y.axis.values.map((v) => fmt(v)) };
  }

  fcTest.prop([
    fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 8 }),
    fc.option(fc.integer({ min: 1, max: 1e7 }), { nil: undefined }),
  ])('for any accuracies: the percentages vega writes are distinct and increasing', (accuracies, items) => {
    const spec = accuracySpec(
      accuracies.map((accuracy, i) => ({ rule: `r${i}`, meanSamples: i, accuracy })),
      items === undefined ? {} : { items },
    );
    const { domain, labels } = yAxis(spec);
    expect(labels.length).toBeGreaterThanOrEqual(2);
    expectDistinctIncreasing(labels, percent);
    expect(domain[0]).toBeLessThanOrEqual(Math.min(...accuracies));
    expect(domain[1]).toBeGreaterThanOrEqual(Math.max(...accuracies));
    // never narrower than the smallest span (or the whole of [0, 1] when that is smaller)
    expect(domain[1] - domain[0]).toBeGreaterThanOrEqual(Math.min(1, accuracyMinSpan(items)) * (1 - 1e-12));
  });

  it('accuracyMinSpan is the 95% interval of one accuracy at p = 1/2: 1.96/√n', () => {
    expect(accuracyMinSpan(500)).toBeCloseTo(1.96 / Math.sqrt(500), 15);
    expect(accuracyMinSpan(1)).toBe(1);
    expect(accuracyMinSpan()).toBe(0.01);
    expect(() => accuracyMinSpan(0)).toThrow(/^items = 0: must be >= 1/);
    expect(() => accuracySpec([{ rule: 'a', meanSamples: 1, accuracy: 0.5 }], { items: 2.5 })).toThrow(
      /^options\.items = 2\.5: must be an integer/,
    );
  });
});
