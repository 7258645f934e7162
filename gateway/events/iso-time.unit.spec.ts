import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTimePrinter } from './iso-time.ts';

describe('isoTimePrinter', () => {
  it('prints what toISOString prints, for repeated and out-of-order times alike', () => {
    const print = isoTimePrinter();
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 8.64e15 }), { maxLength: 20 }), (times) => {
        for (const milliseconds of [...times, ...times.reverse(), ...times]) {
          expect(print(milliseconds)).toBe(new Date(milliseconds).toISOString());
        }
      }),
      { numRuns: 500, seed: 7 },
    );
  });
});
