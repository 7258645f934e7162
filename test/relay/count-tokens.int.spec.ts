/**
 * POST /v1/messages/count_tokens through the gateway with the official `@anthropic-ai/sdk`: an
 * Anthropic channel counts upstream (same auth and version headers as Messages, betas passed), any
 * other channel gets the gateway's tokenizer count marked as an estimate. Not billed (no usage event,
 * no quota used), but the key's checks and RPM apply and the call is recorded; errors in Anthropic's shape.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RequestCompleted } from '../../contracts/events/index.ts';
import { estimatePromptTokens } from '../../gateway/relay/estimate-usage.ts';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness, UPSTREAM_KEY_ANTHROPIC } from '../support/gateway-harness.ts';
import { loggedEvents } from '../support/logged-events.ts';

let harness: Harness;
let consoleClient: ConsoleClient;
let key: string;
let anthropic: Anthropic;
const upstreamCount = (loadJsonFixture('anthropic-count-tokens').body as { input_tokens: number }).input_tokens;

const request = {
  model: 'claude-sonnet-4-5',
  system: [{ type: 'text' as const, text: 'You are terse.', cache_control: { type: 'ephemeral' as const } }],
  messages: [{ role: 'user' as const, content: 'How many tokens is this question?' }],
  tools: [
    {
      name: 'read_file',
      description: 'Reads a file',
      input_schema: { type: 'object' as const, properties: { path: { type: 'string' } }, required: ['path'] },
    },
  ],
};

beforeAll(async () => {
  harness = await startHarness();
  consoleClient = new ConsoleClient(harness.baseUrl);
  await consoleClient.register('count-tokens@example.com');
  key = (await consoleClient.createToken('counting')).key;
  anthropic = clientFor(key);
});
afterAll(async () => harness.stop());
beforeEach(() => harness.upstream.reset());

function clientFor(apiKey: string): Anthropic {
  return new Anthropic({ baseURL: harness.baseUrl, apiKey, maxRetries: 0 });
}

/** RPM windows are clock minutes: two requests either side of a minute's end would both be first. */
async function clearOfMinuteEnd(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 57_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 50));
}

async function completedEvents(): Promise<RequestCompleted[]> {
  await harness.runtime.publisher.flush();
  return loggedEvents(harness.dataDirectory).filter(
    (event): event is RequestCompleted => event.type === 'request.completed',
  );
}

describe('count_tokens on an Anthropic channel', () => {
  it('is counted upstream with the Messages headers and the count returned as sent', async () => {
    const { data, response } = await anthropic.messages
      .countTokens(request, { headers: { 'anthropic-version': '2023-06-01' } })
      .withResponse();
    expect(data).toEqual({ input_tokens: upstreamCount });
    expect(response.headers.get('x-gateway-token-count')).toBeNull();
    const sent = harness.upstream.requests[0]!;
    expect(sent.path).toBe('/v1/messages/count_tokens');
    expect(sent.headers['x-api-key']).toBe(UPSTREAM_KEY_ANTHROPIC);
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.body).toEqual(request);
  });

  it('passes the betas the client names (the SDK adds token-counting) and drops no field', async () => {
    await anthropic.beta.messages.countTokens({ ...request, betas: ['prompt-caching-2024-07-31'] });
    const sent = harness.upstream.requests[0]!;
    expect(sent.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31,token-counting-2024-11-01');
    expect((sent.body as any).system[0].cache_control).toEqual({ type: 'ephemeral' });
  });

  it("relays the upstream's refusal as Anthropic's error, and refuses a reply with no count", async () => {
    harness.upstream.next('error-400');
    const refused = await anthropic.messages.countTokens(request).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });
    harness.upstream.next('text');
    const bad = await anthropic.messages.countTokens(request).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(Anthropic.InternalServerError);
    expect((bad as Error).message).toContain('input_tokens');
  });
});

describe('count_tokens on an OpenAI channel', () => {
  it('is counted by the gateway, marked as an estimate, without calling the upstream', async () => {
    const openAIRequest = { ...request, model: 'gpt-4o-mini' };
    const { data, response } = await anthropic.messages.countTokens(openAIRequest).withResponse();
    expect(response.headers.get('x-gateway-token-count')).toBe('estimate');
    expect(data.input_tokens).toBe(estimatePromptTokens(openAIRequest));
    expect(data.input_tokens).toBeGreaterThan(10);
    expect(harness.upstream.requests).toHaveLength(0);
  });
});

describe('accounting and key checks', () => {
  it('records the call as messages.count_tokens with no usage, and uses none of the quota', async () => {
    const { key: limited, id } = await consoleClient.createToken('count quota', { quota: 30 });
    const client = clientFor(limited);
    await client.messages.countTokens(request);
    await client.messages.countTokens({ ...request, model: 'gpt-4o-mini' });
    await harness.runtime.stores.sync.caughtUp();
    const completed = (await completedEvents()).filter((event) => event.body.tokenId === id);
    expect(completed.map((event) => [event.body.endpoint, event.body.status])).toEqual([
      ['messages.count_tokens', 200],
      ['messages.count_tokens', 200],
    ]);
    const requestIds = new Set(completed.map((event) => event.body.requestId));
    const usage = loggedEvents(harness.dataDirectory).filter(
      (event) => event.type === 'usage.recorded' && requestIds.has(event.body.requestId),
    );
    expect(usage).toEqual([]);
    const { body } = await consoleClient.call('GET', '/api/tokens');
    expect(body.items.find((item: { id: string }) => item.id === id).used_tokens).toBe(0);
  });

  it("applies the key's RPM limit and model allowlist, in Anthropic's error shape", async () => {
    const { key: slow } = await consoleClient.createToken('count rpm', { rpm_limit: 1 });
    await clearOfMinuteEnd();
    await clientFor(slow).messages.countTokens(request);
    const limited = await clientFor(slow)
      .messages.countTokens(request)
      .catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
    expect((limited as any).error.error.type).toBe('rate_limit_error');
    const { key: listed } = await consoleClient.createToken('count allowlist', { models: ['gpt-4o-mini'] });
    const refused = await clientFor(listed)
      .messages.countTokens(request)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.PermissionDeniedError);
    const wrongKey = await clientFor('sk-wrong')
      .messages.countTokens(request)
      .catch((error: unknown) => error);
    expect(wrongKey).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(harness.upstream.requests).toHaveLength(1);
  });

  it("is not held to the key's TPM: a key whose tokens per minute are spent still counts", async () => {
    await clearOfMinuteEnd();
    const { key: spent } = await consoleClient.createToken('count tpm', { tpm_limit: 20 });
    const chat = () =>
      fetch(`${harness.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${spent}` },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(429);
    const count = await clientFor(spent).messages.countTokens(request);
    expect(count.input_tokens).toBe(upstreamCount);
  });

  it('refuses a bad body and an unknown model with clear Anthropic-shaped errors', async () => {
    const post = (body: unknown) =>
      fetch(`${harness.baseUrl}/v1/messages/count_tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify(body),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));
    const noMessages = await post({ model: 'claude-sonnet-4-5' });
    expect(noMessages.status).toBe(400);
    expect(noMessages.body).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'messages: is required' },
    });
    const unknown = await post({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.type).toBe('not_found_error');
    expect(harness.upstream.requests).toHaveLength(0);
  });
});
