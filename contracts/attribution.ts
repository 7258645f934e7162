/**
 * @module contracts/attribution
 * Who and what a request was for, as the client (and its key's defaults) said: an end user, a session
 * and free metadata (`feature=search`, `env=prod`). Recorded with every request, so usage can be cut by
 * them. The bounds keep one request's labels small enough to store and group by with every request.
 */
import { z } from 'zod';

/** At most this many metadata names per request (the key's defaults and the request's together). */
export const METADATA_MAX_KEYS = 16;
export const METADATA_MAX_NAME = 64;
export const METADATA_MAX_VALUE = 256;
/** An end user or session id longer than this is refused: ids, not documents. */
export const ATTRIBUTION_MAX_ID = 256;

/** A metadata name: letters, digits and `_ - . :`, so that it reads the same in a query string and SQL. */
export const metadataNamePattern = /^[A-Za-z0-9_.:-]+$/;

/**
 * Names an object key cannot carry through every reader: zod's record drops `__proto__`, and the other
 * two shadow what every object has. Refused everywhere, so that the stores agree on what was recorded.
 */
const reservedNames: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Whether `name` is a metadata name: 1 to 64 of the characters above, not a reserved one. */
export function isMetadataName(name: string): boolean {
  return (
    name.length >= 1 && name.length <= METADATA_MAX_NAME && metadataNamePattern.test(name) && !reservedNames.has(name)
  );
}

/**
 * Names string values, within the bounds. The names are checked here rather than by a key schema,
 * whose failure zod words only as "Invalid key in record".
 */
export function boundedMetadata(value: z.ZodString) {
  return z.record(z.string(), value).superRefine((metadata, context) => {
    const names = Object.keys(metadata);
    if (names.length > METADATA_MAX_KEYS) {
      context.addIssue({ code: 'custom', message: `may hold at most ${METADATA_MAX_KEYS} names, not ${names.length}` });
    }
    for (const name of names) {
      if (!isMetadataName(name)) {
        context.addIssue({
          code: 'custom',
          path: [name],
          message: `"${name.slice(0, 80)}" is not a metadata name: 1 to ${METADATA_MAX_NAME} letters, digits or _ - . : characters`,
        });
      }
    }
  });
}

export const metadataSchema = boundedMetadata(
  z.string().max(METADATA_MAX_VALUE, `must be at most ${METADATA_MAX_VALUE} characters`),
);

/** What a `request.completed` records of the request's attribution; each part only when known. */
export const requestAttributionSchema = z.object({
  /** the client's own user: OpenAI's `user` or `safety_identifier`, Anthropic's `metadata.user_id` */
  endUser: z.string().min(1).max(ATTRIBUTION_MAX_ID).optional(),
  /** `x-gateway-session-id`, or the session header the agent sends itself (docs/analytics.md) */
  sessionId: z.string().min(1).max(ATTRIBUTION_MAX_ID).optional(),
  /** the key's default metadata, overridden per name by the request's `x-gateway-metadata` */
  metadata: metadataSchema.optional(),
});

export type Metadata = z.infer<typeof metadataSchema>;
export type RequestAttribution = z.infer<typeof requestAttributionSchema>;
