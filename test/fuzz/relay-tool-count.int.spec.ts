/**
 * 129 tools on both relay endpoints: OpenAI documents at most 128 tools, so the chat endpoint refuses
 * them with a 400 in its own shape before any upstream sees the request; the Messages API documents no
 * limit, so there the gateway relays them and the upstream decides (the fake upstream accepts). Never
 * a 5xx either way. Outcome counts go to test/artifacts/fuzz-report/relay-tool-count.json.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { rawRequest, Tally } from './fuzz-support.ts';
import { type Endpoint, endpoints, expectErrorShape, keyHeaders, validBody } from './relay-support.ts';

let harness: Harness;
let key: string;
const tally = new Tally();

beforeAll(async () => {
  harness = await startHarness();
  const console = new ConsoleClient(harness.baseUrl);
  await console.register('fuzz-tools@example.com');
  key = (await console.createToken('tools')).key;
});

afterAll(async () => {
  tally.write('relay-tool-count', {});
  await harness?.stop();
});

function toolsFor(endpoint: Endpoint, count: number): unknown[] {
  return endpoint === '/v1/messages'
    ? Array.from({ length: count }, (_, index) => ({ name: `t${index}`, input_schema: { type: 'object' } }))
    : Array.from({ length: count }, (_, index) => ({ type: 'function', function: { name: `t${index}` } }));
}

describe.each(endpoints)('129 tools on %s', (endpoint) => {
  it(
    endpoint === '/v1/chat/completions'
      ? 'refuses them with 400 before the upstream'
      : 'relays them (no limit in the Messages API)',
    async () => {
      const upstreamRequests = harness.upstream.requests.length;
      const response = await rawRequest(
        harness.baseUrl,
        'POST',
        endpoint,
        keyHeaders(endpoint, key),
        JSON.stringify({ ...validBody(endpoint), tools: toolsFor(endpoint, 129) }),
      );
      tally.record('129 tools', response.status);
      if (endpoint === '/v1/chat/completions') {
        expect(response.status, response.text).toBe(400);
        expectErrorShape(endpoint, response);
        expect(harness.upstream.requests).toHaveLength(upstreamRequests);
      } else {
        expect(response.status, response.text).toBe(200);
        expect(harness.upstream.requests).toHaveLength(upstreamRequests + 1);
      }
    },
  );
});
