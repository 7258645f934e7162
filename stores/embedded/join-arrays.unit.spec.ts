/**
 * The embedded log takes several serialised batches in one append, joined into one JSON array
 * without parsing them again.
 */
import { describe, expect, it } from 'vitest';
import { joinArrays } from './index.ts';

describe('joinArrays', () => {
  it('joins JSON arrays into the array of all their items, in order', () => {
    const arrays = [[{ a: 1 }, { b: '],[' }], [], [{ c: [1, 2] }], ['x']].map((items) => JSON.stringify(items));
    expect(JSON.parse(joinArrays(arrays))).toEqual([{ a: 1 }, { b: '],[' }, { c: [1, 2] }, 'x']);
  });

  it('returns a single array as it is, and no arrays or empty ones as an empty array', () => {
    expect(joinArrays(['[1]'])).toBe('[1]');
    expect(joinArrays(['[]', '[]'])).toBe('[]');
  });
});
