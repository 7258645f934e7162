/**
 * A gateway with Gemini channels in front of two independent Gemini servers: the fake replaying the
 * recorded-shape fixtures (test/fake-upstream/gemini-upstream.ts), and @copilotkit/aimock's Gemini
 * REST mock, so that the gemini kind is not only checked against fixtures this project wrote.
 *
 * Models: `gemini-2.5-flash` and `gemini-2.5-pro` (fake), `gemini-think` (fake, thinking_to_content,
 * upstream gemini-2.5-pro), `aimock-flash` (aimock, upstream gemini-2.5-flash).
 */
import Anthropic from '@anthropic-ai/sdk';
import { LLMock } from '@copilotkit/aimock';
import OpenAI from 'openai';
import { type GeminiUpstream, startGeminiUpstream } from '../../fake-upstream/gemini-upstream.ts';
import { ConsoleClient } from '../../support/console-client.ts';
import { type Harness, startHarness } from '../../support/gateway-harness.ts';

export const GEMINI_KEY = 'AIzaSyGeminiTestKey0123456789abcdefghij';
export const ADMIN = { email: 'gemini-admin@example.com', password: 'gemini-admin-password' };

export interface GeminiGateway {
  harness: Harness;
  gemini: GeminiUpstream;
  aimock: LLMock;
  openai: OpenAI;
  anthropic: Anthropic;
  admin: ConsoleClient;
  stop(): Promise<void>;
}

/** aimock's answers: a weather call for tool requests, its reply to the tool result, else text. */
function scriptAimock(mock: LLMock): void {
  mock.addFixture({
    match: { predicate: (request) => request.messages.at(-1)?.role === 'tool' },
    response: { content: 'Sunny, 21 degrees in Lyon.', usage: { promptTokenCount: 41, candidatesTokenCount: 8 } },
  });
  mock.addFixture({
    match: { predicate: (request) => (request.tools?.length ?? 0) > 0 },
    response: {
      toolCalls: [{ name: 'get_weather', arguments: '{"city":"Lyon"}' }],
      usage: { promptTokenCount: 37, candidatesTokenCount: 6 },
    },
  });
  mock.addFixture({
    match: { predicate: () => true },
    response: { content: 'Hello from aimock Gemini.', usage: { promptTokenCount: 11, candidatesTokenCount: 5 } },
  });
}

export async function startGeminiGateway(user: string): Promise<GeminiGateway> {
  const gemini = await startGeminiUpstream({ apiKey: GEMINI_KEY });
  const aimock = new LLMock({ port: 0, host: '127.0.0.1', logLevel: 'silent' });
  scriptAimock(aimock);
  await aimock.start();
  const harness = await startHarness({
    environment: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password },
    extraChannels: [
      {
        name: 'gemini-fake',
        type: 'gemini',
        baseUrl: gemini.url,
        apiKeys: [GEMINI_KEY],
        models: ['gemini-2.5-flash', 'gemini-2.5-pro'],
      },
      {
        name: 'gemini-thinking-to-content',
        type: 'gemini',
        baseUrl: gemini.url,
        apiKeys: [GEMINI_KEY],
        models: ['gemini-think'],
        modelMapping: { 'gemini-think': 'gemini-2.5-pro' },
        thinkingToContent: true,
      },
      {
        name: 'gemini-aimock',
        type: 'gemini',
        baseUrl: aimock.url,
        apiKeys: [GEMINI_KEY],
        models: ['aimock-flash'],
        modelMapping: { 'aimock-flash': 'gemini-2.5-flash' },
      },
    ],
  });
  const console = new ConsoleClient(harness.baseUrl);
  await console.register(user);
  const key = (await console.createToken('gemini tests')).key;
  const admin = new ConsoleClient(harness.baseUrl);
  await admin.call('POST', '/api/auth/login', ADMIN);
  return {
    harness,
    gemini,
    aimock,
    admin,
    openai: new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: harness.baseUrl, apiKey: key, maxRetries: 0 }),
    async stop() {
      await harness.stop();
      await gemini.close();
      await aimock.stop();
    },
  };
}
