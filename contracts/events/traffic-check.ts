/**
 * @module contracts/events/traffic-check
 * A hand check of the traffic events a request writes (`request.completed` v2 with or without its
 * usage; `usage.recorded` v2, which older releases wrote beside it),
 * for readers of events from outside their process (the cluster projector reads hundreds of thousands
 * a second). zod's parse of each event built a copy of it, and that copy and its garbage were about a
 * tenth of the projector's CPU. This check reads the event in place and answers true only for an event
 * the zod schema accepts unchanged: every field of the right type, no key the schema does not name
 * (zod would strip it), the schema's own patterns for ids and times. Anything else, older versions
 * included, goes to the zod schema, which decides and words the error. The contract test
 * (traffic-check.unit.spec.ts) checks that the hand check never accepts what zod refuses.
 */
import type { z } from 'zod';
import { isAttribution } from './attribution-check.ts';
import type { GatewayEvent } from './index.ts';
import {
  requestCompletedV2,
  requestUsageSchema,
  upstreamAttemptSchema,
  usagePriceSchema,
  usageRecordedV2,
} from './traffic-events.ts';

type Value = Record<string, unknown>;

function patternOf(schema: z.ZodType): RegExp {
  const pattern = (schema as unknown as { _zod: { def: { pattern?: RegExp } } })._zod.def.pattern;
  if (!pattern) throw new Error('the schema has no pattern');
  return pattern;
}

const eventIdPattern = patternOf(requestCompletedV2.shape.eventId);
const timePattern = patternOf(requestCompletedV2.shape.occurredAt);
const endpoints: ReadonlySet<unknown> = new Set(requestCompletedV2.shape.body.shape.endpoint.options);
const priceSources: ReadonlySet<unknown> = new Set(usagePriceSchema.shape.source.options);

/** The keys an object of `shape` always has (its optional ones are counted when present). */
function requiredKeys(shape: Record<string, z.ZodType>): number {
  return Object.values(shape).filter((field) => field._zod.optin !== 'optional').length;
}

const requestKeys = requiredKeys(requestCompletedV2.shape.body.shape);
const usageKeys = requiredKeys(usageRecordedV2.shape.body.shape);
const requestUsageKeys = requiredKeys(requestUsageSchema.shape);
const attemptKeys = requiredKeys(upstreamAttemptSchema.shape);
const priceKeys = requiredKeys(usagePriceSchema.shape);
const envelopeKeys = requiredKeys(requestCompletedV2.shape);
// The versions checked are the schemas' own: a new version goes to zod until this check learns it.
const requestVersion = requestCompletedV2.shape.version.value;
const usageVersion = usageRecordedV2.shape.version.value;

const isString = (value: unknown): value is string => typeof value === 'string';
const isNullableString = (value: unknown) => value === null || typeof value === 'string';
const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
const isAmount = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const isTime = (value: unknown) => typeof value === 'string' && timePattern.test(value);

function isObject(value: unknown): value is Value {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How many own enumerable keys `value` has, without building their array. */
function keyCount(value: Value): number {
  let count = 0;
  for (const key in value) if (Object.hasOwn(value, key)) count++;
  return count;
}

/** The rest of an envelope whose type the caller has checked. */
function isEnvelope(event: Value, version: number): boolean {
  return (
    event['version'] === version &&
    keyCount(event) === envelopeKeys &&
    typeof event['eventId'] === 'string' &&
    eventIdPattern.test(event['eventId']) &&
    isTime(event['occurredAt']) &&
    isObject(event['body'])
  );
}

function isAttempt(value: unknown): boolean {
  return (
    isObject(value) &&
    keyCount(value) === attemptKeys &&
    isString(value['channelId']) &&
    isCount(value['keyIndex']) &&
    Number.isSafeInteger(value['status']) &&
    isNullableString(value['error']) &&
    isAmount(value['latencyMs'])
  );
}

function isRequestBody(body: Value): boolean {
  const attempts = body['attempts'];
  const clientRequestId = body['clientRequestId'];
  const usage = body['usage'];
  const attribution = body['attribution'];
  const optional =
    (attempts === undefined ? 0 : 1) +
    (clientRequestId === undefined ? 0 : 1) +
    (usage === undefined ? 0 : 1) +
    (attribution === undefined ? 0 : 1);
  return (
    keyCount(body) === requestKeys + optional &&
    isString(body['requestId']) &&
    isNullableString(body['userId']) &&
    isNullableString(body['tokenId']) &&
    endpoints.has(body['endpoint']) &&
    isNullableString(body['modelRequested']) &&
    isNullableString(body['modelServed']) &&
    isNullableString(body['channelId']) &&
    typeof body['stream'] === 'boolean' &&
    Number.isSafeInteger(body['status']) &&
    isNullableString(body['errorType']) &&
    isNullableString(body['errorMessage']) &&
    isTime(body['startedAt']) &&
    isAmount(body['latencyMs']) &&
    (body['firstTokenMs'] === null || isAmount(body['firstTokenMs'])) &&
    typeof body['clientAborted'] === 'boolean' &&
    (attempts === undefined || (Array.isArray(attempts) && attempts.every(isAttempt))) &&
    (clientRequestId === undefined || isString(clientRequestId)) &&
    (attribution === undefined || isAttribution(attribution)) &&
    (usage === undefined || (isString(body['userId']) && isString(body['tokenId']) && isRequestUsage(usage)))
  );
}

/** How many of the optional fields of a usage (`usageRefused`, `cacheWrite1hTokens`) `value` has. */
function optionalUsageKeys(value: Value): number {
  return (value['usageRefused'] === undefined ? 0 : 1) + (value['cacheWrite1hTokens'] === undefined ? 0 : 1);
}

/** The token counts and cost shared by a request's usage and a `usage.recorded` body. */
function hasTokensAndCost(value: Value): boolean {
  const source = value['source'];
  const usageRefused = value['usageRefused'];
  return (
    isCount(value['promptTokens']) &&
    isCount(value['completionTokens']) &&
    isCount(value['cachedTokens']) &&
    isCount(value['cacheWriteTokens']) &&
    (value['cacheWrite1hTokens'] === undefined || isCount(value['cacheWrite1hTokens'])) &&
    isCount(value['reasoningTokens']) &&
    (source === 'upstream' || source === 'estimated') &&
    (usageRefused === undefined || isString(usageRefused)) &&
    (value['costNanoUsd'] === null || isCount(value['costNanoUsd'])) &&
    isPrice(value['price'])
  );
}

function isRequestUsage(value: unknown): boolean {
  return isObject(value) && keyCount(value) === requestUsageKeys + optionalUsageKeys(value) && hasTokensAndCost(value);
}

function isPrice(value: unknown): boolean {
  return (
    value === null ||
    (isObject(value) &&
      keyCount(value) === priceKeys + (value['cacheWrite1hPerMillion'] === undefined ? 0 : 1) &&
      priceSources.has(value['source']) &&
      isString(value['model']) &&
      isAmount(value['inputPerMillion']) &&
      isAmount(value['outputPerMillion']) &&
      isAmount(value['cacheReadPerMillion']) &&
      isAmount(value['cacheWritePerMillion']) &&
      (value['cacheWrite1hPerMillion'] === undefined || isAmount(value['cacheWrite1hPerMillion'])) &&
      isAmount(value['perRequest']))
  );
}

function isUsageBody(body: Value): boolean {
  return (
    keyCount(body) === usageKeys + optionalUsageKeys(body) &&
    isString(body['requestId']) &&
    isString(body['userId']) &&
    isString(body['tokenId']) &&
    isNullableString(body['channelId']) &&
    isString(body['model']) &&
    isTime(body['startedAt']) &&
    hasTokensAndCost(body)
  );
}

/** True only when `event` is a current traffic event that the zod schema would accept as it is. */
export function certainlyValidTraffic(event: unknown): event is GatewayEvent {
  if (!isObject(event)) return false;
  if (event['type'] === 'request.completed') {
    return isEnvelope(event, requestVersion) && isRequestBody(event['body'] as Value);
  }
  if (event['type'] === 'usage.recorded') {
    return isEnvelope(event, usageVersion) && isUsageBody(event['body'] as Value);
  }
  return false;
}
