/**
 * @module gateway/providers/conversion/map-error-type
 * The type of an error an upstream reports inside a stream (after the 200), in the client's
 * vocabulary (docs/wire-formats.md §3.7). Errors before the first byte go through the relay's own mapping;
 * these only ever travel as in-stream frames, where no status exists to carry the meaning.
 */

const anthropicToOpenAI: Record<string, string> = {
  invalid_request_error: 'invalid_request_error',
  authentication_error: 'invalid_request_error',
  permission_error: 'permission_error',
  not_found_error: 'invalid_request_error',
  request_too_large: 'invalid_request_error',
  rate_limit_error: 'rate_limit_exceeded',
  billing_error: 'insufficient_quota',
  timeout_error: 'timeout_error',
  overloaded_error: 'service_unavailable_error',
  api_error: 'server_error',
};

/**
 * Error types of stream parts are in Anthropic's closed vocabulary (conversion/reply.ts): a kind's
 * reader that passes on an upstream's own word (Gemini's `RESOURCE_EXHAUSTED`) is read as `api_error`,
 * so an Anthropic client's SDK still knows the error it gets.
 */
export function anthropicVocabulary(errorType: string): string {
  return Object.hasOwn(anthropicToOpenAI, errorType) ? errorType : 'api_error';
}

export function openAIErrorType(anthropicType: string): string {
  return anthropicToOpenAI[anthropicType] ?? 'server_error';
}

/** OpenAI's `type` is not an enum and some servers put the meaning in `code`; both are read. */
export function anthropicErrorType(openAIType: string, code: string | null | undefined): string {
  const said = `${openAIType} ${code ?? ''}`;
  if (/overloaded|service_unavailable|slow_down/.test(said)) return 'overloaded_error';
  if (/rate_limit|^requests |^tokens /.test(said)) return 'rate_limit_error';
  if (/insufficient_quota/.test(said)) return 'billing_error';
  if (/timeout/.test(said)) return 'timeout_error';
  if (/invalid_request/.test(said)) return 'invalid_request_error';
  return 'api_error';
}
