/**
 * The gateway's own UUIDv7 printing against the `uuid` package's, byte for byte, and the ids'
 * creation order within a millisecond.
 */
import fc from 'fast-check';
import { v7, validate, version } from 'uuid';
import { describe, expect, it } from 'vitest';
import { timeOrderedId, uuidV7Text } from './time-ordered-id.ts';

describe('time-ordered ids', () => {
  it('lay out time, counter and random bytes as the uuid package does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 48 - 1 }),
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        (milliseconds, counter, random) => {
          const expected = v7({ msecs: milliseconds, seq: counter, random });
          expect(uuidV7Text(milliseconds, counter, random, 0)).toBe(expected);
        },
      ),
      { numRuns: 5_000, seed: 7 },
    );
  });

  it('are valid version 7 ids, in creation order, with no repeats', () => {
    const ids = Array.from({ length: 20_000 }, () => timeOrderedId());
    for (const id of ids.slice(0, 100)) {
      expect(validate(id)).toBe(true);
      expect(version(id)).toBe(7);
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
