/**
 * @module contracts/console-api-payloads
 * `GET /api/usage/logs/{request_id}/payload`: one request's captured body and reply (docs/payloads.md).
 * Each side is the JSON it parsed to (`json`), or its text when it did not parse or was cut at the
 * capture's cap (`truncated`, with `bytes` the size it had in full).
 */
import { z } from 'zod';

const payloadSideSchema = z.object({
  json: z.unknown().optional(),
  text: z.string().optional(),
  bytes: z.number(),
  truncated: z.boolean(),
});

export const payloadViewSchema = z.object({
  request_id: z.string(),
  token_id: z.string(),
  endpoint: z.string(),
  stream: z.boolean(),
  status: z.number(),
  captured_at: z.string(),
  expires_at: z.string(),
  /** the document's size before and after compression */
  raw_bytes: z.number(),
  stored_bytes: z.number(),
  request: payloadSideSchema,
  /** a streamed reply reassembled into one, in the client's format where the gateway knows it */
  reply: payloadSideSchema,
});

export type PayloadView = z.infer<typeof payloadViewSchema>;
export type PayloadSide = z.infer<typeof payloadSideSchema>;
