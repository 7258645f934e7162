/**
 * @module gateway/providers/gemini/json-schema
 * A client's JSON schema (tool parameters, structured output) as the OpenAPI-style subset Google's
 * `Schema` accepts. What has a Gemini spelling is rewritten (type lists and `null` become `nullable`,
 * `oneOf` becomes `anyOf`, `const` a one-value enum, local `$ref`s are inlined, counts become the
 * int64 strings of Google's JSON, an integer's exclusive bound the inclusive one next to it);
 * annotations Gemini has no field for are left out; a JSON Schema keyword that would change what the
 * schema means and has no Gemini form is refused with a 400 naming it and where it stands, rather
 * than silently loosening the schema the client relies on. A keyword JSON Schema does not define (a
 * vendor's own, such as Codex's `encrypted`) holds no value to anything but its vendor: it is left
 * out, with a warning.
 */
import type { GeminiSchema } from '../../../contracts/gemini/generate-content-request.ts';
import { GatewayError } from '../../errors.ts';

type JsonSchema = Record<string, unknown>;
type GeminiType = NonNullable<GeminiSchema['type']>;

const geminiTypes: Record<string, GeminiType> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
  null: 'NULL',
};

/** The formats Gemini reads, per type; another format is only a hint, and is left out. */
const geminiFormats: Partial<Record<GeminiType, readonly string[]>> = {
  STRING: ['enum', 'date-time'],
  NUMBER: ['float', 'double'],
  INTEGER: ['int32', 'int64'],
};

/** Keywords that only annotate or restate the default: dropping them changes nothing the model is held to. */
const annotations = new Set([
  '$schema',
  '$id',
  '$comment',
  '$defs',
  'definitions',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  '$anchor',
  '$dynamicAnchor',
  '$vocabulary',
  'strict',
]);

/**
 * The JSON Schema keywords (2020-12 and draft-07) that constrain a value or apply subschemas, and that
 * Gemini has no form of: left out, they would loosen what the client relies on.
 */
const constraining = new Set([
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependentRequired',
  'dependencies',
  'patternProperties',
  'propertyNames',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'minContains',
  'maxContains',
  'uniqueItems',
  'multipleOf',
  '$dynamicRef',
  '$recursiveRef',
]);

const copied = ['title', 'description', 'pattern', 'minimum', 'maximum', 'default', 'example'] as const;
const counts = ['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties'] as const;

const handled = new Set<string>([
  ...copied,
  ...counts,
  'type',
  'format',
  'nullable',
  'enum',
  'const',
  'items',
  'properties',
  'required',
  'propertyOrdering',
  'anyOf',
  'oneOf',
  '$ref',
  'additionalProperties',
  'unevaluatedProperties',
  'exclusiveMinimum',
  'exclusiveMaximum',
]);

export interface SchemaContext {
  /** the client field the schema came from, named in a refusal (`tools[0].parameters`) */
  param: string;
  warnings: string[];
}

class Converter {
  readonly #root: JsonSchema;
  readonly #context: SchemaContext;
  readonly #resolving: string[] = [];

  constructor(root: JsonSchema, context: SchemaContext) {
    this.#root = root;
    this.#context = context;
  }

  refuse(keyword: string, where: string, why: string): never {
    throw new GatewayError(
      'invalid_request',
      `The JSON schema in ${this.#context.param} uses \`${keyword}\` at ${place(where)}, which Gemini cannot express: ${why}.`,
      { param: this.#context.param },
    );
  }

  convert(schema: unknown, where: string): GeminiSchema {
    if (schema === true || (isObject(schema) && Object.keys(schema).length === 0)) return {};
    if (!isObject(schema)) this.refuse('(a non-object schema)', where, 'a schema must be an object');
    if (typeof schema['$ref'] === 'string') return this.#reference(schema, where);
    for (const keyword of Object.keys(schema)) {
      if (handled.has(keyword) || annotations.has(keyword)) continue;
      if (constraining.has(keyword))
        this.refuse(keyword, where, 'Gemini function and response schemas have no such keyword');
      this.#context.warnings.push(
        `${this.#context.param}: ${keyword} at ${place(where)} dropped: not a JSON Schema keyword, and Gemini has no such field`,
      );
    }
    const types = typeList(schema['type'], (bad) => this.refuse('type', where, `unknown type ${bad}`));
    const nonNull = types.filter((type) => type !== 'null');
    if (nonNull.length > 1) {
      // ["string", "integer"] is a choice between types: Gemini spells it anyOf.
      const { type: _list, ...rest } = schema;
      const anyOf = nonNull.map((type) => this.convert({ ...rest, type }, where));
      return { anyOf, ...(types.includes('null') && { nullable: true }) };
    }
    const result: GeminiSchema = {};
    const type = nonNull[0] ?? (types.includes('null') ? 'null' : inferredType(schema));
    if (type) result.type = geminiTypes[type]!;
    if (types.includes('null') && nonNull.length === 1) result.nullable = true;
    if (schema['nullable'] === true) result.nullable = true;
    for (const keyword of copied) if (schema[keyword] !== undefined) (result as JsonSchema)[keyword] = schema[keyword];
    for (const keyword of counts) {
      const value = schema[keyword];
      if (Number.isSafeInteger(value)) result[keyword] = String(value);
      else if (value !== undefined) this.refuse(keyword, where, 'it must be a whole number');
    }
    this.#exclusiveBounds(schema, result, where);
    this.#format(schema, result, where);
    this.#enum(schema, result, where);
    this.#objectKeywords(schema, result, where);
    this.#choices(schema, result, where);
    if (schema['items'] !== undefined) {
      if (Array.isArray(schema['items'])) this.refuse('items', where, 'tuple items (an array of schemas)');
      result.items = this.convert(schema['items'], `${where}.items`);
    }
    return result;
  }

  #reference(schema: JsonSchema, where: string): GeminiSchema {
    const reference = schema['$ref'] as string;
    const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(reference);
    const target = match ? (this.#root[match[1]!] as JsonSchema | undefined)?.[match[2]!] : undefined;
    if (!match || target === undefined) this.refuse('$ref', where, `${reference} is not a definition of this schema`);
    if (this.#resolving.includes(reference))
      this.refuse('$ref', where, `${reference} refers to itself (a recursive schema)`);
    this.#resolving.push(reference);
    const { $ref: _reference, ...siblings } = schema;
    const resolved = this.convert({ ...(target as JsonSchema), ...siblings }, where);
    this.#resolving.pop();
    return resolved;
  }

  /**
   * Gemini's bounds are inclusive. On an integer, `exclusiveMinimum: 0` is exactly `minimum: 1` (what
   * zod's `.positive()` writes, e.g. in Claude Code's tools); on a number no inclusive bound is the
   * same, so that stays refused.
   */
  #exclusiveBounds(schema: JsonSchema, result: GeminiSchema, where: string): void {
    for (const [keyword, inclusive, step] of [
      ['exclusiveMinimum', 'minimum', 1],
      ['exclusiveMaximum', 'maximum', -1],
    ] as const) {
      const bound = schema[keyword];
      if (bound === undefined) continue;
      if (result.type !== 'INTEGER' || !Number.isSafeInteger(bound)) {
        this.refuse(keyword, where, 'its bounds are inclusive, and only an integer has an inclusive bound equal to it');
      }
      const moved = (bound as number) + step;
      const given = schema[inclusive];
      // Both given: the tighter one holds.
      const tighter = typeof given !== 'number' ? moved : step > 0 ? Math.max(given, moved) : Math.min(given, moved);
      result[inclusive] = tighter;
    }
  }

  #format(schema: JsonSchema, result: GeminiSchema, where: string): void {
    const format = schema['format'];
    if (format === undefined) return;
    if (typeof format === 'string' && result.type && geminiFormats[result.type]?.includes(format)) {
      result.format = format;
    } else {
      this.#context.warnings.push(
        `${this.#context.param}: format ${String(format)} at ${place(where)} dropped: Gemini reads no such format`,
      );
    }
  }

  #enum(schema: JsonSchema, result: GeminiSchema, where: string): void {
    const values = schema['enum'] ?? (schema['const'] !== undefined ? [schema['const']] : undefined);
    if (values === undefined) return;
    const keyword = schema['enum'] !== undefined ? 'enum' : 'const';
    if (!Array.isArray(values) || !values.every((value) => typeof value === 'string')) {
      this.refuse(keyword, where, 'Gemini enums hold strings only');
    }
    result.type ??= 'STRING';
    result.enum = values as string[];
  }

  #objectKeywords(schema: JsonSchema, result: GeminiSchema, where: string): void {
    for (const keyword of ['additionalProperties', 'unevaluatedProperties']) {
      const value = schema[keyword];
      // false is what Gemini does anyway (it fills the declared properties), and true only permits.
      if (value !== undefined && typeof value !== 'boolean') {
        this.refuse(keyword, where, 'a schema for undeclared properties (a map)');
      }
    }
    if (schema['properties'] !== undefined) {
      if (!isObject(schema['properties'])) this.refuse('properties', where, 'it must be an object');
      result.properties = Object.fromEntries(
        Object.entries(schema['properties']).map(([name, property]) => [
          name,
          this.convert(property, `${where}.properties.${name}`),
        ]),
      );
    }
    for (const keyword of ['required', 'propertyOrdering'] as const) {
      const value = schema[keyword];
      if (value === undefined) continue;
      if (!Array.isArray(value) || !value.every((name) => typeof name === 'string'))
        this.refuse(keyword, where, 'it must list property names');
      result[keyword] = value as string[];
    }
  }

  #choices(schema: JsonSchema, result: GeminiSchema, where: string): void {
    const keyword = schema['anyOf'] !== undefined ? 'anyOf' : 'oneOf';
    const choices = schema[keyword];
    if (choices === undefined) return;
    if (!Array.isArray(choices)) this.refuse(keyword, where, 'it must list schemas');
    const nullable = choices.some((choice) => isObject(choice) && choice['type'] === 'null');
    const rest = choices.filter((choice) => !(isObject(choice) && choice['type'] === 'null'));
    const converted = rest.map((choice, index) => this.convert(choice, `${where}.${keyword}[${index}]`));
    if (nullable) result.nullable = true;
    // { anyOf: [X, null] } is X that may be null: Gemini says nullable.
    if (converted.length === 1) Object.assign(result, converted[0], nullable && { nullable: true });
    else if (converted.length > 1) result.anyOf = converted;
  }
}

/** `.properties.city` as `properties.city`; the root as `its root`. */
function place(where: string): string {
  return where ? where.slice(1) : 'its root';
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeList(type: unknown, refuse: (bad: string) => never): string[] {
  if (type === undefined) return [];
  const list = Array.isArray(type) ? type : [type];
  for (const each of list) if (typeof each !== 'string' || !(each in geminiTypes)) refuse(JSON.stringify(each));
  return list as string[];
}

function inferredType(schema: JsonSchema): string | undefined {
  if (schema['properties'] !== undefined) return 'object';
  if (schema['items'] !== undefined) return 'array';
  return undefined;
}

/** `schema` in Gemini's subset; a 400 GatewayError naming the keyword when it has none. */
export function geminiSchema(schema: Record<string, unknown>, context: SchemaContext): GeminiSchema {
  return new Converter(schema, context).convert(schema, '');
}
