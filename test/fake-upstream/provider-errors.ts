/**
 * Error replies the fake builds itself (auth, malformed body, unknown route), each in the provider's
 * own body shape so the gateway's error translation is exercised exactly as against the real API.
 */
import { randomBytes } from 'node:crypto';
import { type JsonFixture, loadJsonFixture, type Provider } from './fixtures.ts';

export function requestIdHeader(provider: Provider): Record<string, string> {
  // OpenAI names it `x-request-id`, Anthropic `request-id`; the SDKs read only their own.
  return provider !== 'anthropic'
    ? { 'x-request-id': `req_${randomBytes(16).toString('hex')}` }
    : { 'request-id': `req_011C${randomBytes(12).toString('base64url')}` };
}

/** Auth failures reuse the recorded 401 fixtures, so there is one source for that shape. */
export function authenticationError(provider: Provider): JsonFixture {
  // The Responses API authenticates as the rest of OpenAI's API does.
  return loadJsonFixture(`${provider === 'anthropic' ? 'anthropic' : 'openai'}-error-401`);
}

export function missingVersionError(): JsonFixture {
  // The real API answers a missing `anthropic-version` with 400, not 401.
  return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required');
}

export function malformedBodyError(provider: Provider): JsonFixture {
  if (provider === 'anthropic') {
    return anthropicError(
      400,
      'invalid_request_error',
      'There was an error parsing the body of your request. Please make sure it is valid JSON.',
    );
  }
  return openaiError(
    400,
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
  );
}

export function notFoundError(provider: Provider, method: string, path: string): JsonFixture {
  if (provider === 'anthropic') return anthropicError(404, 'not_found_error', `Not Found: ${method} ${path}`);
  return openaiError(404, `Invalid URL (${method} ${path})`);
}

export function missingFixtureError(provider: Provider, description: string): JsonFixture {
  const message = `Fake upstream has no fixture for ${description}`;
  return provider === 'anthropic'
    ? anthropicError(500, 'api_error', message)
    : openaiError(500, message, 'server_error');
}

function openaiError(status: number, message: string, type = 'invalid_request_error'): JsonFixture {
  return {
    kind: 'json',
    name: `openai-generated-${status}`,
    status,
    headers: {},
    body: { error: { message, type, param: null, code: null } },
  };
}

function anthropicError(status: number, type: string, message: string): JsonFixture {
  const requestId = `req_011C${randomBytes(12).toString('base64url')}`;
  return {
    kind: 'json',
    name: `anthropic-generated-${status}`,
    status,
    headers: { 'request-id': requestId },
    body: { type: 'error', error: { type, message }, request_id: requestId },
  };
}
