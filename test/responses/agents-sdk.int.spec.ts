/**
 * The OpenAI Agents SDK (which speaks the Responses API) running an agent with a function tool
 * against the gateway, on both channel kinds: the model calls the tool, the SDK runs it and sends
 * the result back, and the final answer comes from the upstream's reply to that result.
 */
import { Agent, OpenAIProvider, Runner, tool } from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ConversionGateway, startConversionGateway } from '../conversion/support/gateway-clients.ts';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';

let gateway: ConversionGateway;

beforeAll(async () => {
  gateway = await startConversionGateway('agents-sdk@example.com');
});
afterAll(async () => gateway.harness.stop());

describe.each([
  { kind: 'openai', model: 'gpt-4o-mini' },
  { kind: 'anthropic', model: 'claude-sonnet-4-5' },
] as const)('an agent on the $kind channel', ({ kind, model }) => {
  it.each([false, true])(
    'calls its function tool through /v1/responses and answers with the tool result (streamed: %s)',
    async (stream) => {
      gateway.harness.upstream.reset();
      const cities: string[] = [];
      const getWeather = tool({
        name: 'get_weather',
        description: 'Current weather',
        parameters: z.object({ city: z.string() }),
        execute: async ({ city }) => {
          cities.push(city);
          return '18°C, sunny';
        },
      });
      const agent = new Agent({
        name: 'Weather',
        instructions: 'Answer with the weather.',
        model,
        tools: [getWeather],
      });
      const runner = new Runner({
        modelProvider: new OpenAIProvider({
          apiKey: gateway.key,
          baseURL: `${gateway.harness.baseUrl}/v1`,
          useResponses: true,
        }),
        tracingDisabled: true,
      });
      const result = stream
        ? await runner.run(agent, 'Weather in Paris?', { stream: true })
        : await runner.run(agent, 'Weather in Paris?');
      if (stream) {
        // Drain the SDK's event stream; completed resolves once the run (tool call included) has ended.
        for await (const _event of result as AsyncIterable<unknown>) {
        }
        await (result as { completed: Promise<void> }).completed;
      }
      const reply = loadJsonFixture(`${kind}-tool-result-reply`).body as any;
      const expected = kind === 'openai' ? reply.choices[0].message.content : reply.content[0].text;
      expect(cities).toEqual(['Paris']);
      expect(result.finalOutput).toBe(expected);
      const requests = gateway.harness.upstream.requests;
      expect(requests).toHaveLength(2);
      const second = JSON.stringify(requests[1]!.body);
      expect(second).toContain('18°C, sunny');
    },
  );
});
