import { describe, expect, it } from 'vitest';
import { fieldNestedTooDeep, MAX_JSON_DEPTH } from './json-depth.ts';

/** A value nested `depth` levels deep, as parsed JSON (built from text: the test's own stack never recurses). */
function deep(depth: number, kind: 'array' | 'object'): unknown {
  return JSON.parse(
    kind === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
  );
}

describe('fieldNestedTooDeep', () => {
  it('finds nothing in a body at the limit, counting the top-level object as level 1', () => {
    expect(fieldNestedTooDeep({ x: deep(MAX_JSON_DEPTH - 1, 'array') })).toBeNull();
    expect(fieldNestedTooDeep({ x: deep(MAX_JSON_DEPTH, 'array') })).toBe('x');
    expect(fieldNestedTooDeep({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })).toBeNull();
  });

  it('names the field where a runaway value starts, not the whole chain below it', () => {
    const body = {
      model: 'm',
      tools: [{ type: 'function', function: { name: 'f', parameters: deep(5_000, 'object') } }],
    };
    expect(fieldNestedTooDeep(body)).toBe('tools[0].function.parameters');
    expect(fieldNestedTooDeep({ model: 'm', x_unknown: deep(5_000, 'array') })).toBe('x_unknown');
    expect(fieldNestedTooDeep({ metadata: { user_id: 'u', deep: deep(300, 'object') }, model: 'm' })).toBe(
      'metadata.deep',
    );
  });

  it('keeps at most three names, and names the body when the body itself is the chain', () => {
    const wide = { a: { b: { c: { d: { e: 1, f: deep(200, 'object') }, g: 1 }, h: 1 }, i: 1 }, j: 1 };
    expect(fieldNestedTooDeep(wide)).toBe('a.b.c');
    expect(fieldNestedTooDeep(deep(200, 'object'))).toBe('a');
    expect(fieldNestedTooDeep(deep(200, 'array'))).toBe('[0]');
  });

  it('walks a body far deeper than the stack allows without overflowing', () => {
    expect(fieldNestedTooDeep({ x: deep(1_000_000, 'array'), model: 'm' })).toBe('x');
  });
});
