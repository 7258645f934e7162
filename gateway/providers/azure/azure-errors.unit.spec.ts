import { describe, expect, it } from 'vitest';
import { loadJsonFixture } from '../../../test/fake-upstream/fixtures.ts';
import { retryHeaders, upstreamError } from '../../relay/upstream-error.ts';
import { contentFilterRefusal, flaggedCategories } from './content-filter.ts';

const channel = { apiKey: 'azure-key-0123456789abcdef' };
const headersOf = (values: Record<string, string>) => ({ header: (name: string) => values[name] });

describe("Azure's content-filter refusal", () => {
  it('answers 400 invalid_request with code content_filter, param prompt and the flagged categories', () => {
    const fixture = loadJsonFixture('azure-error-content-filter');
    const error = upstreamError(400, JSON.stringify(fixture.body), undefined, channel);
    expect(error.kind).toBe('invalid_request');
    expect(error.status).toBe(400);
    expect(error.code).toBe('content_filter');
    expect(error.param).toBe('prompt');
    expect(error.message).toMatch(/^Azure's content filter flagged the prompt: hate \(high\), violence \(medium\)\. /);
    expect(error.message).toContain("triggering Azure OpenAI's content management policy");
    expect(error.isRetryable).toBe(false);
  });

  it("keeps the channel's key out of the message the filter error echoes", () => {
    const body = { error: { code: 'content_filter', message: `blocked for ${channel.apiKey}`, innererror: {} } };
    const error = upstreamError(400, JSON.stringify(body), undefined, channel);
    expect(error.message).not.toContain(channel.apiKey);
    expect(error.message).toContain("Azure's content filter refused the prompt.");
  });

  it('reads only well-formed verdicts of reasonable names, and nothing from other errors', () => {
    expect(
      flaggedCategories({
        hate: { filtered: true, severity: 'low' },
        sexual: { filtered: false, severity: 'safe' },
        jailbreak: { filtered: true, detected: true },
        custom_blocklists: [{ filtered: true, id: 'list' }],
        violence: { filtered: true, severity: '<script>' },
        ['x'.repeat(100)]: { filtered: true },
      }),
    ).toEqual(['hate (low)', 'jailbreak', 'violence']);
    expect(contentFilterRefusal({ error: { code: 'rate_limit_exceeded', message: 'x' } })).toBeNull();
    expect(contentFilterRefusal('content_filter')).toBeNull();
    const plain = upstreamError(
      400,
      JSON.stringify({ error: { code: 'BadRequest', message: 'bad' } }),
      undefined,
      channel,
    );
    expect(plain.code).toBeNull();
    expect(plain.message).toBe('The upstream provider rejected the request: bad');
  });
});

describe("an upstream's retry hint", () => {
  it("forwards Azure's retry-after and retry-after-ms on a 429", () => {
    const fixture = loadJsonFixture('azure-error-429');
    const error = upstreamError(429, JSON.stringify(fixture.body), headersOf(fixture.headers), channel);
    expect(error.kind).toBe('rate_limit');
    expect(error.isRetryable).toBe(true);
    expect(error.headers).toEqual({ 'retry-after': '7', 'retry-after-ms': '6350' });
    expect(error.message).toContain('exceeded token rate limit');
  });

  it('derives retry-after in whole seconds, rounded up, from retry-after-ms alone', () => {
    const fixture = loadJsonFixture('azure-error-429-ms');
    expect(retryHeaders(headersOf(fixture.headers))).toEqual({ 'retry-after': '3', 'retry-after-ms': '2500' });
    expect(retryHeaders(headersOf({ 'retry-after-ms': '20' }))).toEqual({ 'retry-after': '1', 'retry-after-ms': '20' });
  });

  it('ignores a retry-after-ms that is not a number of milliseconds', () => {
    expect(retryHeaders(headersOf({ 'retry-after-ms': 'soon' }))).toEqual({});
    expect(retryHeaders(headersOf({ 'retry-after-ms': '-5', 'retry-after': '2' }))).toEqual({ 'retry-after': '2' });
    expect(retryHeaders(undefined)).toEqual({});
  });
});
