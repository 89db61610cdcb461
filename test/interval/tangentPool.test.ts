/**
 * withTangentPool (src/interval/tensor.ts): tangent arrays recycled between evaluations of a
 * form. The pool must hand back arrays zeroed, share the outermost pool when nested, and leave
 * every enclosure bit for bit what it is without the pool.
 */
import { describe, expect, it } from 'vitest';
import { fc, test as fcTest } from '@fast-check/vitest';
import { encloseForm, type TfForm } from '../../src/interval/intervalTf.js';
import { withTangentPool, zeroTangent } from '../../src/interval/tensor.js';

describe('withTangentPool', () => {
  it('hands a recycled array back zeroed, of the same length only', () => {
    withTangentPool((recycle) => {
      const a = zeroTangent(3, 0, 4);
      a.dlo.fill(7);
      a.dhi.fill(-7);
      recycle();
      const b = zeroTangent(3, 0, 4);
      expect([b.dlo, b.dhi]).toContain(a.dlo);
      expect([b.dlo, b.dhi]).toContain(a.dhi);
      expect(Array.from(b.dlo)).toEqual(new Array(12).fill(0));
      expect(Array.from(b.dhi)).toEqual(new Array(12).fill(0));
      const c = zeroTangent(3, 0, 5); // another length: a fresh array
      expect(c.dlo).not.toBe(a.dlo);
      expect(c.dlo).not.toBe(a.dhi);
    });
  });

  it('gives fresh arrays outside a pool, and nested calls share the outer pool', () => {
    const a = zeroTangent(2, 0, 2);
    const b = zeroTangent(2, 0, 2);
    expect(a.dlo).not.toBe(b.dlo);
    withTangentPool(() => {
      let inner: Float64Array | undefined;
      withTangentPool((recycle) => {
        inner = zeroTangent(2, 0, 2).dlo;
        recycle();
      });
      // the inner recycle put its array on the outer pool's free list
      const again = zeroTangent(2, 0, 2);
      expect([again.dlo, again.dhi]).toContain(inner);
    });
    // the pool is gone with the outermost call
    const after = zeroTangent(2, 0, 2);
    expect(after.dlo).not.toBe(a.dlo);
  });

  const form: TfForm = (tf, X) => {
    const t = tf.tanh(tf.mul(X, tf.scalar(1.5)));
    return tf.add(tf.mul(t, t), tf.sigmoid(tf.sub(X, tf.scalar(0.25))));
  };
  const box = fc.array(
    fc.tuple(fc.double({ min: -3, max: 3, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })),
    {
      minLength: 1,
      maxLength: 40,
    },
  );

  fcTest.prop([fc.array(box, { minLength: 1, maxLength: 6 })], { numRuns: 25 })(
    'leaves every enclosure and Jacobian bit for bit what it is without the pool',
    (boxes) => {
      const enclose = (b: [number, number][]) => {
        const lo = Float64Array.from(b, ([c]) => c);
        const hi = Float64Array.from(b, ([c, w]) => c + w);
        const seeds = Array.from({ length: b.length }, (_, i) => i);
        return encloseForm(form, lo, hi, { seeds, chunk: 7 });
      };
      const plain = boxes.map(enclose);
      const pooled = withTangentPool(() => boxes.map(enclose));
      pooled.forEach((r, k) => {
        expect(r.lo).toEqual(plain[k]!.lo);
        expect(r.hi).toEqual(plain[k]!.hi);
        expect(r.jacobian!.lo).toEqual(plain[k]!.jacobian!.lo);
        expect(r.jacobian!.hi).toEqual(plain[k]!.jacobian!.hi);
      });
    },
  );
});
