/**
 * @module gateway/providers/gemini/error-type
 * Google's canonical status names (google.rpc.Code) as the error type of an in-stream error, in
 * Anthropic's closed vocabulary like every reader's (conversion/reply.ts). Errors before the first
 * byte are mapped by their HTTP status in the relay instead.
 */
const errorTypes: Record<string, string> = {
  INVALID_ARGUMENT: 'invalid_request_error',
  FAILED_PRECONDITION: 'invalid_request_error',
  OUT_OF_RANGE: 'invalid_request_error',
  UNAUTHENTICATED: 'authentication_error',
  PERMISSION_DENIED: 'permission_error',
  NOT_FOUND: 'not_found_error',
  RESOURCE_EXHAUSTED: 'rate_limit_error',
  UNAVAILABLE: 'overloaded_error',
  DEADLINE_EXCEEDED: 'timeout_error',
};

export function errorTypeOfGeminiStatus(status: string): string {
  return errorTypes[status] ?? 'api_error';
}
