/**
 * @module gateway/providers/gemini-ingress/json-schema
 * A Gemini client's `Schema` (Google's OpenAPI-style subset: upper-case types, `nullable`, counts as
 * int64 strings) as the JSON schema the neutral request carries for tools and structured output. The
 * inverse of gemini/json-schema.ts: what has a JSON-schema spelling is rewritten, `propertyOrdering`
 * (an ordering hint JSON schema has no word for) is left out, and any other keyword is kept as it is.
 */
type Schema = Record<string, unknown>;

const counts = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']);

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Google's type names in either case; TYPE_UNSPECIFIED says nothing. */
function jsonType(type: unknown): string | undefined {
  if (typeof type !== 'string') return undefined;
  const lower = type.toLowerCase();
  return lower === 'type_unspecified' ? undefined : lower;
}

export function jsonSchemaOf(schema: Schema): Schema {
  const result: Schema = {};
  const nullable = schema['nullable'] === true;
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'nullable' || keyword === 'propertyOrdering') continue;
    if (keyword === 'type') {
      const type = jsonType(value);
      if (type) result['type'] = nullable && type !== 'null' ? [type, 'null'] : type;
    } else if (counts.has(keyword)) {
      const count = typeof value === 'string' ? Number(value) : value;
      result[keyword] = Number.isSafeInteger(count) ? count : value;
    } else if (keyword === 'properties' && isObject(value)) {
      result['properties'] = Object.fromEntries(
        Object.entries(value).map(([name, property]) => [name, isObject(property) ? jsonSchemaOf(property) : property]),
      );
    } else if (keyword === 'items' && isObject(value)) {
      result['items'] = jsonSchemaOf(value);
    } else if (keyword === 'anyOf' && Array.isArray(value)) {
      result['anyOf'] = value.map((choice) => (isObject(choice) ? jsonSchemaOf(choice) : choice));
    } else if (keyword === 'example') {
      result['examples'] = [value];
    } else {
      result[keyword] = value;
    }
  }
  // A nullable choice without a type of its own: null is one more choice.
  if (nullable && result['type'] === undefined && Array.isArray(result['anyOf'])) {
    result['anyOf'] = [...(result['anyOf'] as unknown[]), { type: 'null' }];
  }
  return result;
}
