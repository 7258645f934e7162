/**
 * @module gateway/relay/render-error
 * Renders a GatewayError in each endpoint's own error shape (docs/wire-formats.md §1.6, §2.5). The SDKs pick
 * their exception class from the status, so the status matters most; type strings follow what each
 * provider sends.
 */
import type { AnthropicErrorBody } from '../../contracts/anthropic/error.ts';
import type { OpenAIErrorBody } from '../../contracts/openai/error.ts';
import type { ErrorKind, GatewayError } from './errors.ts';

const openAITypes: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'invalid_request_error',
  permission: 'permission_error',
  not_found: 'invalid_request_error',
  request_too_large: 'invalid_request_error',
  unsupported_media_type: 'invalid_request_error',
  rate_limit: 'rate_limit_exceeded',
  insufficient_quota: 'insufficient_quota',
  upstream: 'upstream_error',
  overloaded: 'service_unavailable_error',
  timeout: 'timeout_error',
  internal: 'server_error',
};

const openAIDefaultCodes: Partial<Record<ErrorKind, string>> = {
  authentication: 'invalid_api_key',
  rate_limit: 'rate_limit_exceeded',
  insufficient_quota: 'insufficient_quota',
  request_too_large: 'request_too_large',
};

const anthropicTypes: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  request_too_large: 'request_too_large',
  unsupported_media_type: 'invalid_request_error',
  rate_limit: 'rate_limit_error',
  insufficient_quota: 'billing_error',
  upstream: 'api_error',
  overloaded: 'overloaded_error',
  timeout: 'timeout_error',
  internal: 'api_error',
};

export function openAIErrorBody(error: GatewayError): OpenAIErrorBody {
  return {
    error: {
      message: error.message,
      type: openAITypes[error.kind],
      param: error.param,
      code: error.code ?? openAIDefaultCodes[error.kind] ?? null,
    },
  };
}

export function anthropicErrorBody(error: GatewayError, requestId: string): AnthropicErrorBody {
  return { type: 'error', error: { type: anthropicTypes[error.kind], message: error.message }, request_id: requestId };
}

/** The type string recorded on the request event, format-neutral. */
export function errorTypeOf(error: GatewayError): string {
  return error.code ?? anthropicTypes[error.kind];
}
