import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { coordinateArray, coordinateAt, coordinateIndices, coordinateRange } from '../../src/system/coordinates.js';

describe('coordinateIndices', () => {
  fcTest.prop([fc.nat(1000), fc.nat(300), fc.integer({ min: 1, max: 7 })])(
    'a range gives the indices coordinateAt and coordinateArray give, as an Int32Array',
    (start, count, stride) => {
      const r = coordinateRange(start, count, stride);
      const got = coordinateIndices(r);
      expect(got).toBeInstanceOf(Int32Array);
      expect(Array.from(got)).toEqual(Array.from({ length: count }, (_, i) => coordinateAt(r, i)));
      expect(Array.from(got)).toEqual(coordinateArray(r));
    },
  );

  it('a list is copied into an Int32Array; an Int32Array is returned as it is', () => {
    const list = [4, 1, 9];
    const got = coordinateIndices(list);
    expect(Array.from(got)).toEqual(list);
    const typed = Int32Array.of(2, 3);
    expect(coordinateIndices(typed)).toBe(typed);
  });

  it('refuses, naming the set, a range beyond the limit, before allocating', () => {
    expect(() => coordinateIndices(coordinateRange(0, 2 ** 30), 'coordinates')).toThrow(
      /^coordinates = "1073741824 coordinates".*too large to enumerate \(more than 16777216 indices\)/,
    );
    expect(() => coordinateIndices(coordinateRange(0, 11), 'w', 10)).toThrow(/^w = "11 coordinates"/);
  });
});
