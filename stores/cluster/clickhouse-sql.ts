/**
 * @module stores/cluster/clickhouse-sql
 * Values bound into ClickHouse SQL on the client side: ClickHouse 18.16 (Debian's package) has no
 * server-side query parameters, so every value goes through these functions, never string concatenation.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const needsEscape = /[\\'\x00-\x1f\x7f]/;

/** A single-quoted string literal: backslash and quote escaped, control characters as escapes. */
export function stringLiteral(value: string): string {
  // Most values (ids, model names) need no escaping; the projector quotes thousands per batch.
  if (!needsEscape.test(value)) return `'${value}'`;
  let out = "'";
  for (const character of value) {
    const code = character.codePointAt(0)!;
    if (character === '\\') out += '\\\\';
    else if (character === "'") out += "\\'";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += character;
  }
  return `${out}'`;
}

export function integerLiteral(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`Not a safe integer for SQL: ${value}`);
  return String(value);
}

/** `(a, b, c)` of string literals, for `IN`. An empty list becomes `('')` so the SQL stays valid. */
export function stringList(values: readonly string[]): string {
  return `(${(values.length > 0 ? values : ['']).map(stringLiteral).join(', ')})`;
}

/** Identifiers (database and table names) from configuration: letters, digits and underscores only. */
export function identifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name)) throw new Error(`Invalid ClickHouse identifier: ${name}`);
  return name;
}
