import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors.ts';
import { geminiSchema } from './json-schema.ts';

const convert = (schema: Record<string, unknown>, warnings: string[] = []) =>
  geminiSchema(schema, { param: 'tools[0].parameters', warnings });

function refusal(schema: Record<string, unknown>): GatewayError {
  try {
    convert(schema);
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error('not refused');
}

describe('JSON schema in Gemini’s subset', () => {
  it('rewrites types, nullable unions, oneOf, const, counts and local $refs', () => {
    const warnings: string[] = [];
    const converted = convert(
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        additionalProperties: false,
        $defs: { unit: { type: 'string', enum: ['c', 'f'], description: 'Unit' } },
        properties: {
          city: { type: 'string', minLength: 1, format: 'email' },
          days: { type: ['integer', 'null'], minimum: 1, format: 'int32' },
          unit: { $ref: '#/$defs/unit' },
          mode: { const: 'fast' },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
          either: { oneOf: [{ type: 'string' }, { type: 'number' }] },
          maybe: { anyOf: [{ type: 'boolean' }, { type: 'null' }] },
        },
        required: ['city'],
      },
      warnings,
    );
    expect(converted).toEqual({
      type: 'OBJECT',
      properties: {
        city: { type: 'STRING', minLength: '1' },
        days: { type: 'INTEGER', nullable: true, minimum: 1, format: 'int32' },
        unit: { type: 'STRING', enum: ['c', 'f'], description: 'Unit' },
        mode: { type: 'STRING', enum: ['fast'] },
        tags: { type: 'ARRAY', items: { type: 'STRING' }, maxItems: '3' },
        either: { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }] },
        maybe: { type: 'BOOLEAN', nullable: true },
      },
      required: ['city'],
    });
    expect(warnings).toEqual([
      'tools[0].parameters: format email at properties.city dropped: Gemini reads no such format',
    ]);
  });

  it('a list of several types becomes anyOf', () => {
    expect(convert({ type: ['string', 'integer'] })).toEqual({ anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }] });
  });

  it('writes an integer’s exclusive bounds as the inclusive ones next to them', () => {
    const converted = convert({
      type: 'object',
      properties: {
        limit: { type: 'integer', exclusiveMinimum: 0, maximum: 9007199254740991 },
        offset: { type: 'integer', minimum: 5, exclusiveMinimum: 0, exclusiveMaximum: 10 },
      },
    });
    expect(converted.properties).toEqual({
      limit: { type: 'INTEGER', minimum: 1, maximum: 9007199254740991 },
      offset: { type: 'INTEGER', minimum: 5, maximum: 9 },
    });
  });

  it('leaves out a keyword JSON Schema does not define, with a warning', () => {
    const warnings: string[] = [];
    const converted = convert(
      {
        type: 'object',
        properties: { message: { type: 'string', description: 'Text.', encrypted: true } },
        required: ['message'],
      },
      warnings,
    );
    expect(converted.properties).toEqual({ message: { type: 'STRING', description: 'Text.' } });
    expect(warnings).toEqual([
      'tools[0].parameters: encrypted at properties.message dropped: not a JSON Schema keyword, and Gemini has no such field',
    ]);
  });

  it.each([
    [{ type: 'number', exclusiveMinimum: 0 }, 'exclusiveMinimum', 'its root'],
    [{ type: 'integer', exclusiveMaximum: 0.5 }, 'exclusiveMaximum', 'its root'],
    [{ type: 'object', allOf: [{ type: 'object' }] }, 'allOf', 'its root'],
    [
      { type: 'object', properties: { tags: { type: 'object', additionalProperties: { type: 'string' } } } },
      'additionalProperties',
      'properties.tags',
    ],
    [{ type: 'object', properties: { a: { not: { type: 'string' } } } }, 'not', 'properties.a'],
    [{ type: 'array', items: [{ type: 'string' }] }, 'items', 'its root'],
    [{ type: 'integer', enum: [1, 2] }, 'enum', 'its root'],
    [{ type: 'object', properties: { node: { $ref: '#' } } }, '$ref', 'properties.node'],
    [
      { $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } }, $ref: '#/$defs/node' },
      '$ref',
      'properties.next',
    ],
    [{ type: 'object', patternProperties: { '^x': { type: 'string' } } }, 'patternProperties', 'its root'],
    [{ type: 'array', items: { type: 'string' }, uniqueItems: true }, 'uniqueItems', 'its root'],
    [{ type: 'number', multipleOf: 5 }, 'multipleOf', 'its root'],
  ])('refuses %j naming %s', (schema, keyword, where) => {
    const error = refusal(schema);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error.status).toBe(400);
    expect(error.param).toBe('tools[0].parameters');
    expect(error.message).toContain(`\`${keyword}\` at ${where}`);
  });
});
