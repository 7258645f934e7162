/**
 * @module test/fuzz/relay-support
 * What the relay fuzz suites share: the two endpoints, a valid body for each, a key's headers in each
 * endpoint's style, and the check that an answer is in the endpoint's own error shape.
 */
import { expect } from 'vitest';
import type { RawResponse } from './fuzz-support.ts';

export type Endpoint = '/v1/chat/completions' | '/v1/messages';
export const endpoints: Endpoint[] = ['/v1/chat/completions', '/v1/messages'];

export function validBody(endpoint: Endpoint): Record<string, unknown> {
  return endpoint === '/v1/messages'
    ? { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }
    : { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
}

/** A JSON request with `key`, as each endpoint's own clients send it. */
export function keyHeaders(
  endpoint: Endpoint,
  key: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return endpoint === '/v1/messages'
    ? { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01', ...extra }
    : { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...extra };
}

/** The endpoint's own error shape: OpenAI `{error:{message,type,param,code}}`, Anthropic `{type:'error',error:{type,message}}`. */
export function expectErrorShape(endpoint: Endpoint, response: RawResponse): void {
  expect(response.json, response.text.slice(0, 300)).toBeTypeOf('object');
  if (endpoint === '/v1/messages') {
    expect(response.json.type).toBe('error');
    expect(response.json.error.type).toBeTypeOf('string');
    expect(response.json.error.message).toBeTypeOf('string');
  } else {
    expect(Object.keys(response.json)).toEqual(['error']);
    expect(response.json.error.message).toBeTypeOf('string');
    expect(response.json.error.type).toBeTypeOf('string');
    expect(response.json.error).toHaveProperty('param');
    expect(response.json.error).toHaveProperty('code');
  }
}
