/**
 * @module contracts/events/payload-events
 * Payload capture (opt-in per key or per account): one request's body and its reply, secrets scrubbed,
 * each side capped and marked when cut, compressed as one JSON document. Traffic events, apart from
 * `request.completed`, so a usage event never carries a body: a consumer that does not keep payloads
 * reads past one without decoding it. `payloads.deleted` forgets a key's or an account's payloads.
 */
import { z } from 'zod';
import { envelope } from './envelope.ts';

/** The longest retention an owner may set, in days; 0 turns capture off. */
export const MAX_CAPTURE_DAYS = 90;

export const captureDaysSchema = z.number().int().min(0).max(MAX_CAPTURE_DAYS);

/** How `data` is compressed: Node's own zlib (zstd, or gzip where the runtime lacks zstd). */
export const payloadEncodingSchema = z.enum(['zstd', 'gzip']);

export const payloadCapturedV1 = envelope(
  'payload.captured',
  1,
  z.object({
    /** the request whose body and reply these are (its `request.completed`) */
    requestId: z.string(),
    userId: z.string(),
    tokenId: z.string(),
    /** when the payload is dropped: the capture time plus the retention in force at capture */
    expiresAt: z.iso.datetime(),
    encoding: payloadEncodingSchema,
    /** the compressed JSON document (`CapturedPayload`), base64 */
    data: z.string(),
    /** the document's size before compression, and `data`'s decoded size */
    rawBytes: z.number().int().min(0),
    storedBytes: z.number().int().min(0),
  }),
);

/** A key's payloads (`tokenId`), or every payload of an account (`tokenId` null), to be forgotten. */
export const payloadsDeletedV1 = envelope(
  'payloads.deleted',
  1,
  z.object({
    userId: z.string(),
    tokenId: z.string().nullable(),
    reason: z.enum(['key_revoked', 'account_deleted', 'owner_asked']),
  }),
);

/** One side of the exchange: parsed JSON when it parsed, else the text; `truncated` when it was cut at the cap. */
export const capturedSideSchema = z.object({
  json: z.unknown().optional(),
  text: z.string().optional(),
  bytes: z.number().int().min(0),
  truncated: z.boolean(),
});

/**
 * What `data` decompresses to. A streamed reply is reassembled into one reply in the client's format
 * where the gateway knows how (Chat Completions, Messages, Responses); otherwise its events are listed.
 */
export const capturedPayloadSchema = z.object({
  endpoint: z.string(),
  stream: z.boolean(),
  status: z.number().int(),
  request: capturedSideSchema,
  reply: capturedSideSchema,
});

export type PayloadCaptured = z.infer<typeof payloadCapturedV1>;
export type PayloadsDeleted = z.infer<typeof payloadsDeletedV1>;
export type CapturedSide = z.infer<typeof capturedSideSchema>;
export type CapturedPayload = z.infer<typeof capturedPayloadSchema>;
