/**
 * @module contracts/bedrock/converse-stream
 * The events of Bedrock's ConverseStream (`POST /model/{modelId}/converse-stream`), one per AWS
 * event-stream message: the message's `:event-type` header names the event and its JSON payload is
 * the member below. Errors after the 200 come as messages of `:message-type` `exception`, named by
 * `:exception-type`, with a `{ message }` payload.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html
 */
import { z } from 'zod';
import { converseStopReasonSchema, converseUsageSchema } from './converse.ts';

export const messageStartEventSchema = z.object({ role: z.enum(['user', 'assistant']) });

/** Only tool use announces itself at its start; text and reasoning blocks start with their first delta. */
export const contentBlockStartEventSchema = z.object({
  contentBlockIndex: z.number().int(),
  start: z.object({ toolUse: z.object({ toolUseId: z.string(), name: z.string() }).optional() }),
});

export const contentBlockDeltaEventSchema = z.object({
  contentBlockIndex: z.number().int(),
  delta: z.union([
    z.object({ text: z.string() }),
    /** the tool's input as JSON text, in pieces */
    z.object({ toolUse: z.object({ input: z.string() }) }),
    z.object({
      reasoningContent: z.union([
        z.object({ text: z.string() }),
        z.object({ signature: z.string() }),
        z.object({ redactedContent: z.string() }),
      ]),
    }),
  ]),
});

export const contentBlockStopEventSchema = z.object({ contentBlockIndex: z.number().int() });

export const messageStopEventSchema = z.object({
  stopReason: converseStopReasonSchema,
  additionalModelResponseFields: z.unknown().optional(),
});

export const metadataEventSchema = z.object({
  usage: converseUsageSchema,
  metrics: z.object({ latencyMs: z.number() }).optional(),
});

/** The event types, as the `:event-type` header names them. */
export const converseStreamEventTypes = [
  'messageStart',
  'contentBlockStart',
  'contentBlockDelta',
  'contentBlockStop',
  'messageStop',
  'metadata',
] as const;

/** The exceptions ConverseStream may send in the stream, as `:exception-type` names them. */
export const converseStreamExceptionTypes = [
  'internalServerException',
  'modelStreamErrorException',
  'validationException',
  'throttlingException',
  'serviceUnavailableException',
] as const;

export type MessageStartEvent = z.infer<typeof messageStartEventSchema>;
export type ContentBlockStartEvent = z.infer<typeof contentBlockStartEventSchema>;
export type ContentBlockDeltaEvent = z.infer<typeof contentBlockDeltaEventSchema>;
export type ContentBlockStopEvent = z.infer<typeof contentBlockStopEventSchema>;
export type MessageStopEvent = z.infer<typeof messageStopEventSchema>;
export type MetadataEvent = z.infer<typeof metadataEventSchema>;
export type ConverseStreamEventType = (typeof converseStreamEventTypes)[number];
export type ConverseStreamExceptionType = (typeof converseStreamExceptionTypes)[number];
