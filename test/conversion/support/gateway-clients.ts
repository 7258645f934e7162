/** A harness with the channels the conversion suites use, a key, and both official clients. */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ConsoleClient } from '../../support/console-client.ts';
import { type Harness, startHarness } from '../../support/gateway-harness.ts';

export interface ConversionGateway {
  harness: Harness;
  key: string;
  openai: OpenAI;
  anthropic: Anthropic;
  /** POST to the gateway with the client's key, for what the SDKs hide (headers, raw frames). */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
}

/**
 * Besides the harness defaults (gpt-4o-mini on openai, claude-sonnet-4-5 on anthropic), two channels
 * with thinking_to_content: `deepseek-reasoner` (openai) and `claude-think` (anthropic).
 */
export async function startConversionGateway(user: string): Promise<ConversionGateway> {
  const harness = await startHarness({
    extraChannels: [
      { name: 'openai-thinking-to-content', type: 'openai', models: ['deepseek-reasoner'], thinkingToContent: true },
      { name: 'anthropic-thinking-to-content', type: 'anthropic', models: ['claude-think'], thinkingToContent: true },
    ],
  });
  const console = new ConsoleClient(harness.baseUrl);
  await console.register(user);
  const key = (await console.createToken('conversion tests')).key;
  return {
    harness,
    key,
    openai: new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: harness.baseUrl, apiKey: key, maxRetries: 0 }),
    post: (path, body, headers = {}) =>
      fetch(`${harness.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${key}`,
          'x-api-key': key,
          'anthropic-version': '2023-06-01',
          ...headers,
        },
        body: JSON.stringify(body),
      }),
  };
}
