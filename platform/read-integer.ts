/**
 * @module platform/read-integer
 * Reads one whole-number setting from the environment, refusing anything else with the variable's name.
 */

export function integer(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new Error(`${name} must be a non-negative integer, got "${value}".`);
  return parsed;
}
