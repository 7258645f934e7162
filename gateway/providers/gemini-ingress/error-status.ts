/**
 * @module gateway/providers/gemini-ingress/error-status
 * Google's error body (google.rpc.Status as JSON) for Gemini clients: the HTTP status as `code` and
 * its canonical name as `status`, as Google pairs them; an in-stream error's type (Anthropic's closed
 * vocabulary, which stream parts use) by the status it stands for.
 */
import type { GeminiErrorBody } from '../../../contracts/gemini/error.ts';

const statusNames: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'UNIMPLEMENTED',
  408: 'DEADLINE_EXCEEDED',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const statusOfType: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  billing_error: 429,
  timeout_error: 504,
  overloaded_error: 503,
};

export function googleStatusName(status: number): string {
  return statusNames[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}

/** `reason`: the gateway's stable code, as Google's ErrorInfo carries one. */
export function googleErrorBody(status: number, message: string, reason?: string | null): GeminiErrorBody {
  const error: GeminiErrorBody['error'] = { code: status, message, status: googleStatusName(status) };
  if (reason) error.details = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason }];
  return { error };
}

/** An in-stream error part (its type in Anthropic's vocabulary) in Google's shape. */
export function googleStreamError(errorType: string, message: string): GeminiErrorBody {
  return googleErrorBody(statusOfType[errorType] ?? 500, message);
}
