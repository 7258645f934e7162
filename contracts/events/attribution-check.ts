/**
 * @module contracts/events/attribution-check
 * The hand check of a request's attribution (traffic-check.ts): true only for what
 * `requestAttributionSchema` accepts unchanged. Anything else goes to zod, which decides.
 */
import { ATTRIBUTION_MAX_ID, isMetadataName, METADATA_MAX_KEYS, METADATA_MAX_VALUE } from '../attribution.ts';

type Value = Record<string, unknown>;

const isObject = (value: unknown): value is Value =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isId = (value: unknown) =>
  value === undefined || (typeof value === 'string' && value.length >= 1 && value.length <= ATTRIBUTION_MAX_ID);

function isMetadata(value: unknown): boolean {
  if (value === undefined) return true;
  if (!isObject(value) || Object.getPrototypeOf(value) !== Object.prototype) return false;
  let count = 0;
  for (const name in value) {
    if (!Object.hasOwn(value, name)) return false;
    count++;
    const entry = value[name];
    if (!isMetadataName(name)) return false;
    if (typeof entry !== 'string' || entry.length > METADATA_MAX_VALUE) return false;
  }
  return count <= METADATA_MAX_KEYS;
}

export function isAttribution(value: unknown): boolean {
  if (!isObject(value)) return false;
  let count = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return false;
    if (key !== 'endUser' && key !== 'sessionId' && key !== 'metadata') return false;
    count++;
  }
  return count <= 3 && isId(value['endUser']) && isId(value['sessionId']) && isMetadata(value['metadata']);
}
