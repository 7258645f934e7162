/**
 * A small validator for OpenAI's published OpenAPI document (a copy of the project's reference
 * spec, pinned in test/conversion/fixtures/ so a clone anywhere can run the suite), so
 * the converted chat responses and stream chunks are checked against the schemas the SDKs are
 * generated from, without a JSON Schema package. It follows `$ref`, and checks `type` (also as a list,
 * with "null"), OpenAPI 3.0's `nullable`, `enum`, `const`, `required`, `properties`, `items`,
 * `additionalProperties`, `anyOf`, `oneOf` (exactly one) and `allOf`. Formats and descriptions are
 * not checked; unknown properties are allowed unless the schema says otherwise, as in JSON Schema.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

type Schema = Record<string, any>;

const specFile = fileURLToPath(new URL('../fixtures/openai-openapi.yaml', import.meta.url));
let schemas: Record<string, Schema> | undefined;

function componentSchemas(): Record<string, Schema> {
  schemas ??= (parse(readFileSync(specFile, 'utf8')) as { components: { schemas: Record<string, Schema> } }).components
    .schemas;
  return schemas;
}

function resolve(reference: string): Schema {
  const name = reference.replace('#/components/schemas/', '');
  const schema = componentSchemas()[name];
  if (!schema) throw new Error(`unknown schema ${reference}`);
  return schema;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(expected: string, actual: string): boolean {
  return expected === actual || (expected === 'number' && actual === 'integer');
}

function check(schema: Schema, value: unknown, path: string, errors: string[]): void {
  if (value === null && schema['nullable'] === true) return;
  if (schema['$ref']) {
    check(resolve(schema['$ref']), value, path, errors);
    return;
  }
  if (schema['allOf']) for (const part of schema['allOf'] as Schema[]) check(part, value, path, errors);
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    if (!schema[keyword]) continue;
    const matching = (schema[keyword] as Schema[]).filter((option) => validate(option, value, path).length === 0);
    if (matching.length === 0) errors.push(`${path}: matches no ${keyword} option`);
    if (keyword === 'oneOf' && matching.length > 1) errors.push(`${path}: matches ${matching.length} oneOf options`);
  }
  const actual = typeOf(value);
  if (schema['type'] !== undefined) {
    const allowed = Array.isArray(schema['type']) ? (schema['type'] as string[]) : [schema['type'] as string];
    if (!allowed.some((expected) => typeMatches(expected, actual))) {
      errors.push(`${path}: expected ${allowed.join(' or ')}, got ${actual}`);
      return;
    }
  }
  if (schema['enum'] && !(schema['enum'] as unknown[]).includes(value))
    errors.push(`${path}: ${JSON.stringify(value)} not in ${JSON.stringify(schema['enum'])}`);
  if ('const' in schema && schema['const'] !== value)
    errors.push(`${path}: expected ${JSON.stringify(schema['const'])}`);
  if (actual === 'object') checkObject(schema, value as Record<string, unknown>, path, errors);
  if (actual === 'array' && schema['items']) {
    for (const [index, item] of (value as unknown[]).entries())
      check(schema['items'], item, `${path}[${index}]`, errors);
  }
}

function checkObject(schema: Schema, value: Record<string, unknown>, path: string, errors: string[]): void {
  for (const field of (schema['required'] as string[] | undefined) ?? []) {
    if (!(field in value)) errors.push(`${path}.${field}: is required`);
  }
  const properties = (schema['properties'] as Record<string, Schema> | undefined) ?? {};
  for (const [field, fieldValue] of Object.entries(value)) {
    const fieldSchema = properties[field];
    if (fieldSchema) check(fieldSchema, fieldValue, `${path}.${field}`, errors);
    else if (schema['additionalProperties'] === false) errors.push(`${path}.${field}: not allowed`);
    else if (typeof schema['additionalProperties'] === 'object')
      check(schema['additionalProperties'], fieldValue, `${path}.${field}`, errors);
  }
}

function validate(schema: Schema, value: unknown, path: string): string[] {
  const errors: string[] = [];
  check(schema, value, path, errors);
  return errors;
}

/** Every violation of the named component schema, e.g. `CreateChatCompletionResponse`; [] when valid. */
export function validateAgainst(schemaName: string, value: unknown): string[] {
  return validate(resolve(`#/components/schemas/${schemaName}`), value, schemaName);
}
