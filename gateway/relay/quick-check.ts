/**
 * @module gateway/relay/quick-check
 * The endpoints' envelopes (what the relay reads of a body before routing: contracts/…
 * `*EnvelopeSchema`) checked by hand, in place. The zod envelope stays the source of truth and words
 * every error: it runs only when this check says no. Property tests hold each check to its schema's
 * answer over generated bodies, so the two cannot drift apart unnoticed.
 *
 * Why: zod parses into a copy of every message object, which the relay throws away; on an agent's
 * body (60 tools, every earlier tool call and result) that copy and its garbage cost more than the
 * rest of the relay's own work, and agents send such a body every turn.
 */

type Body = Record<string, unknown>;

const isObject = (value: unknown): value is Body =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const inRange = (value: unknown, minimum: number, maximum: number) =>
  isNumber(value) && value >= minimum && value <= maximum;
const isCount = (value: unknown, maximum = Number.MAX_SAFE_INTEGER) =>
  Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= maximum;
const nullish = (value: unknown) => value === undefined || value === null;
const isModel = (value: unknown) => typeof value === 'string' && value.length > 0;

/** A non-empty list of objects, each with a string `role`. */
function isMessageList(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  for (const message of value) if (!isObject(message) || typeof message['role'] !== 'string') return false;
  return true;
}

/** `chatCompletionEnvelopeSchema` (contracts/openai/chat-request.ts). */
export function chatCompletionCertainlyValid(body: Body): boolean {
  const options = body['stream_options'];
  return (
    isModel(body['model']) &&
    isMessageList(body['messages']) &&
    (nullish(body['stream']) || typeof body['stream'] === 'boolean') &&
    (nullish(options) ||
      (isObject(options) &&
        (options['include_usage'] === undefined || typeof options['include_usage'] === 'boolean'))) &&
    (nullish(body['temperature']) || inRange(body['temperature'], 0, 2)) &&
    (nullish(body['n']) || isCount(body['n'], 128)) &&
    (nullish(body['max_tokens']) || isCount(body['max_tokens'])) &&
    (nullish(body['max_completion_tokens']) || isCount(body['max_completion_tokens'])) &&
    (nullish(body['presence_penalty']) || inRange(body['presence_penalty'], -2, 2)) &&
    (nullish(body['frequency_penalty']) || inRange(body['frequency_penalty'], -2, 2)) &&
    (body['tools'] === undefined || (Array.isArray(body['tools']) && body['tools'].length <= 128))
  );
}

/** `messagesEnvelopeSchema` (contracts/anthropic/messages-request.ts). */
export function messagesCertainlyValid(body: Body): boolean {
  return (
    isModel(body['model']) &&
    (body['max_tokens'] === undefined || isCount(body['max_tokens'])) &&
    isMessageList(body['messages']) &&
    (body['stream'] === undefined || typeof body['stream'] === 'boolean')
  );
}

/** `responsesEnvelopeSchema` (contracts/openai/responses-request.ts). */
export function responsesCertainlyValid(body: Body): boolean {
  const input = body['input'];
  return (
    isModel(body['model']) &&
    (input === undefined || typeof input === 'string' || (Array.isArray(input) && input.every(isObject))) &&
    (nullish(body['stream']) || typeof body['stream'] === 'boolean') &&
    (nullish(body['store']) || typeof body['store'] === 'boolean') &&
    (nullish(body['previous_response_id']) || typeof body['previous_response_id'] === 'string') &&
    (nullish(body['max_output_tokens']) || isCount(body['max_output_tokens']))
  );
}

/** `generateContentEnvelopeSchema` (contracts/gemini/client-request.ts). */
export function generateContentCertainlyValid(body: Body): boolean {
  const contents = body['contents'];
  const config = body['generationConfig'];
  if (!Array.isArray(contents)) return false;
  for (const content of contents) {
    if (!isObject(content) || !(content['parts'] === undefined || Array.isArray(content['parts']))) return false;
  }
  return (
    config === undefined ||
    (isObject(config) &&
      (config['maxOutputTokens'] === undefined || isCount(config['maxOutputTokens'])) &&
      (config['candidateCount'] === undefined || isCount(config['candidateCount'])))
  );
}
