/**
 * Gemini-format clients: the official `@google/genai` SDK pointed at the gateway (`httpOptions.baseUrl`,
 * the gateway's sk- key as `apiKey`) on a gemini channel, relayed as written, and on openai and
 * anthropic channels, converted through the neutral core: generateContent whole and streamed,
 * countTokens, embeddings, a function-calling round trip, the usage recorded as the fake upstream
 * reported it, a `?key=` key kept out of the logs and events, and errors in Google's shape.
 */
import { ApiError, type Content, type FunctionDeclaration, GoogleGenAI, Type } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RequestCompleted } from '../../contracts/events/index.ts';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { type GeminiUpstream, startGeminiUpstream } from '../fake-upstream/gemini-upstream.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { loggedEvents } from '../support/logged-events.ts';

const GEMINI_KEY = 'AIzaSyGeminiClientsKey0123456789abcdefgh';

let harness: Harness;
let gemini: GeminiUpstream;
let key: string;
let ai: GoogleGenAI;
const captured: string[] = [];
const restore: Array<() => void> = [];

const weather: FunctionDeclaration = {
  name: 'get_weather',
  description: 'Current weather',
  parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] },
};

function captureOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      captured.push(String(chunk));
      return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    restore.push(() => {
      stream.write = original as typeof stream.write;
    });
  }
}

async function completedEvents(): Promise<RequestCompleted[]> {
  await harness.runtime.publisher.flush();
  return loggedEvents(harness.dataDirectory).filter(
    (event): event is RequestCompleted => event.type === 'request.completed',
  );
}

async function usageOf(requestCount: number) {
  await harness.runtime.publisher.flush();
  return loggedEvents(harness.dataDirectory)
    .filter((event) => event.type === 'usage.recorded')
    .slice(-requestCount)
    .map((event) => (event.type === 'usage.recorded' ? event.body : null)!);
}

beforeAll(async () => {
  captureOutput();
  gemini = await startGeminiUpstream({ apiKey: GEMINI_KEY });
  harness = await startHarness({
    environment: { LOG_LEVEL: 'info' },
    extraChannels: [
      { name: 'gemini', type: 'gemini', baseUrl: gemini.url, apiKeys: [GEMINI_KEY], models: ['gemini-2.5-flash'] },
      { name: 'embed', type: 'openai', models: ['text-embedding-3-small'] },
    ],
  });
  const console = new ConsoleClient(harness.baseUrl);
  await console.register('gemini-clients@example.com');
  key = (await console.createToken('gemini sdk')).key;
  ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: harness.baseUrl } });
});
afterAll(async () => {
  await harness?.stop();
  await gemini?.close();
  for (const undo of restore.reverse()) undo();
});
beforeEach(() => {
  gemini.reset();
  harness.upstream.reset();
});

describe('on a gemini channel (relayed as written)', () => {
  it('generateContent: the body goes upstream as sent, the reply and usage come back', async () => {
    const response = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Say hello',
      config: { systemInstruction: 'Be brief.', maxOutputTokens: 100, temperature: 0.2 },
    });
    const fixture = loadJsonFixture('gemini-text').body as { usageMetadata: Record<string, number> };
    expect(response.text).toBe('Hello! How can I help you today?');
    expect(response.usageMetadata?.promptTokenCount).toBe(fixture.usageMetadata['promptTokenCount']);
    const sent = gemini.requests[0]!;
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe(GEMINI_KEY);
    expect(sent.body).toEqual({
      contents: [{ parts: [{ text: 'Say hello' }], role: 'user' }],
      systemInstruction: { parts: [{ text: 'Be brief.' }], role: 'user' },
      generationConfig: { maxOutputTokens: 100, temperature: 0.2 },
    });
    const [usage] = await usageOf(1);
    expect(usage).toMatchObject({
      promptTokens: 31,
      completionTokens: 9 + 23,
      reasoningTokens: 23,
      source: 'upstream',
    });
    const completed = (await completedEvents()).at(-1)!;
    expect(completed.body).toMatchObject({ endpoint: 'gemini.generateContent', modelRequested: 'gemini-2.5-flash' });
  });

  it('streamGenerateContent streams the upstream’s events, usage read from the last', async () => {
    let text = '';
    let last: number | undefined;
    for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Hi' })) {
      text += chunk.text ?? '';
      last = chunk.usageMetadata?.promptTokenCount ?? last;
    }
    expect(text).toBe('Hello! How can I help you today?');
    expect(last).toBe(33);
    expect(gemini.requests[0]!.query).toBe('?alt=sse');
    const [usage] = await usageOf(1);
    expect(usage).toMatchObject({ promptTokens: 33, completionTokens: 34, cachedTokens: 12, source: 'upstream' });
    expect((await completedEvents()).at(-1)!.body).toMatchObject({ endpoint: 'gemini.generateContent', stream: true });
  });

  it('countTokens is counted upstream', async () => {
    const counted = await ai.models.countTokens({ model: 'gemini-2.5-flash', contents: 'How many tokens?' });
    expect(counted.totalTokens).toBe(9);
    expect(gemini.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
    expect((await completedEvents()).at(-1)!.body.endpoint).toBe('gemini.countTokens');
  });

  it('embedContent goes to batchEmbedContents upstream, counted with the tokenizer', async () => {
    const embedded = await ai.models.embedContent({
      model: 'gemini-2.5-flash',
      contents: [{ parts: [{ text: 'one' }] }, { parts: [{ text: 'two' }] }],
    });
    expect(embedded.embeddings).toHaveLength(2);
    expect(embedded.embeddings![0]!.values).toHaveLength(8);
    expect(gemini.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:batchEmbedContents');
    const [usage] = await usageOf(1);
    expect(usage).toMatchObject({ promptTokens: 2, source: 'estimated' });
  });

  it('a function-calling round trip', async () => {
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }];
    const first = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents,
      config: { tools: [{ functionDeclarations: [weather] }] },
    });
    expect(first.functionCalls?.[0]).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
    contents.push(first.candidates![0]!.content!, {
      role: 'user',
      parts: [{ functionResponse: { name: 'get_weather', response: { temperature: 18 } } }],
    });
    const second = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents,
      config: { tools: [{ functionDeclarations: [weather] }] },
    });
    expect(second.text).toBe('It is 18 °C and sunny in Paris.');
    // The model's turn went back with Google's signature, as the client kept it.
    expect((gemini.requests[1]!.body as { contents: Content[] }).contents[1]!.parts![0]!.thoughtSignature).toBe(
      'CiIBVKhc7oDDaOuX4hCxMZ8QdyTZT0oPhoFOGfEF3Z5Ww9mX',
    );
  });

  it('Google’s 429 reaches the client as Google’s error', async () => {
    gemini.next('error-429');
    gemini.next('error-429');
    gemini.next('error-429');
    const error = await ai.models
      .generateContent({ model: 'gemini-2.5-flash', contents: 'x' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(429);
    expect(JSON.parse((error as ApiError).message).error.status).toBe('RESOURCE_EXHAUSTED');
  });
});

describe('on openai and anthropic channels (converted)', () => {
  it.each([
    ['gpt-4o-mini', '/v1/chat/completions'],
    ['claude-sonnet-4-5', '/v1/messages'],
  ])('%s: generateContent, with the usage the upstream reported', async (model, path) => {
    const response = await ai.models.generateContent({
      model,
      contents: 'Say hello',
      config: { systemInstruction: 'Be brief.', maxOutputTokens: 64, stopSequences: ['END'] },
    });
    expect(response.text).toBeTruthy();
    expect(response.candidates![0]!.finishReason).toBe('STOP');
    const sent = harness.upstream.requests.at(-1)!;
    expect(sent.path).toBe(path);
    const [usage] = await usageOf(1);
    expect(usage!.source).toBe('upstream');
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: usage!.promptTokens,
      totalTokenCount: usage!.promptTokens + usage!.completionTokens,
    });
    expect((await completedEvents()).at(-1)!.body).toMatchObject({ endpoint: 'gemini.generateContent', status: 200 });
  });

  it.each(['gpt-4o-mini', 'claude-sonnet-4-5'])(
    '%s: streamed, ending with the finish reason and usage',
    async (model) => {
      let text = '';
      let usage: number | undefined;
      let finish: string | undefined;
      for await (const chunk of await ai.models.generateContentStream({ model, contents: 'Say hello' })) {
        text += chunk.text ?? '';
        usage = chunk.usageMetadata?.totalTokenCount ?? usage;
        finish = chunk.candidates?.[0]?.finishReason ?? finish;
      }
      expect(text).toBeTruthy();
      expect(finish).toBe('STOP');
      const [recorded] = await usageOf(1);
      expect(usage).toBe(recorded!.promptTokens + recorded!.completionTokens);
    },
  );

  it.each(['gpt-4o-mini', 'claude-sonnet-4-5'])('%s: a function-calling round trip', async (model) => {
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }];
    const config = { tools: [{ functionDeclarations: [weather] }] };
    const first = await ai.models.generateContent({ model, contents, config });
    const call = first.functionCalls?.[0];
    expect(call?.name).toBe('get_weather');
    contents.push(first.candidates![0]!.content!, {
      role: 'user',
      parts: [{ functionResponse: { name: 'get_weather', response: { temperature: 18 } } }],
    });
    const second = await ai.models.generateContent({ model, contents, config });
    expect(second.text).toBeTruthy();
    const sent = harness.upstream.requests.at(-1)!.body as Record<string, unknown>;
    expect(JSON.stringify(sent)).toContain(call!.id!);
    expect(JSON.stringify(sent)).toContain('"temperature\\":18');
  });

  it('countTokens is the gateway’s estimate', async () => {
    const counted = await ai.models.countTokens({ model: 'claude-sonnet-4-5', contents: 'How many tokens?' });
    expect(counted.totalTokens).toBeGreaterThan(0);
    expect(harness.upstream.requests).toHaveLength(0);
  });

  it('embeddings on an openai channel', async () => {
    const embedded = await ai.models.embedContent({ model: 'text-embedding-3-small', contents: ['one', 'two'] });
    expect(embedded.embeddings?.length).toBe(2);
    expect(harness.upstream.requests.at(-1)!.body).toMatchObject({ input: ['one', 'two'], encoding_format: 'float' });
  });

  it('candidateCount over 1 is refused in Google’s shape', async () => {
    const error = await ai.models
      .generateContent({ model: 'gpt-4o-mini', contents: 'x', config: { candidateCount: 2 } })
      .catch((caught: unknown) => caught);
    expect((error as ApiError).status).toBe(400);
    const body = JSON.parse((error as ApiError).message);
    expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(body.error.message).toContain('candidateCount');
  });
});

describe('keys, models and errors', () => {
  it('a key in ?key= works and is in no log line and no event', async () => {
    const response = await fetch(`${harness.baseUrl}/v1beta/models/gpt-4o-mini:generateContent?key=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    });
    expect(response.status).toBe(200);
    await harness.runtime.publisher.flush();
    expect(captured.join('')).toContain('gemini.generateContent');
    expect(captured.join('')).not.toContain(key);
    expect(JSON.stringify(loggedEvents(harness.dataDirectory))).not.toContain(key);
  });

  it('a wrong key is UNAUTHENTICATED; an unknown model NOT_FOUND', async () => {
    const wrong = new GoogleGenAI({ apiKey: 'sk-wrong', httpOptions: { baseUrl: harness.baseUrl } });
    const refused = await wrong.models.generateContent({ model: 'gpt-4o-mini', contents: 'x' }).catch((e) => e);
    expect(JSON.parse((refused as ApiError).message).error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    const unknown = await ai.models.generateContent({ model: 'no-such-model', contents: 'x' }).catch((e) => e);
    expect(JSON.parse((unknown as ApiError).message).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
  });

  it('an error after the 200 is Google’s error event', async () => {
    gemini.next('midstream-error');
    const error = await (async () => {
      for await (const _chunk of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'x' })) {
        // read on
      }
    })().catch((caught: unknown) => caught);
    expect(String(error)).toMatch(/overloaded/i);
  });

  it('lists and gets models in Google’s shape; /v1/models stays OpenAI’s for bearer callers', async () => {
    const names: string[] = [];
    for await (const model of await ai.models.list()) names.push(model.name!);
    expect(names).toEqual(expect.arrayContaining(['models/gemini-2.5-flash', 'models/gpt-4o-mini']));
    const one = await ai.models.get({ model: 'gemini-2.5-flash' });
    expect(one.supportedActions).toContain('generateContent');
    const openai = await fetch(`${harness.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await openai.json()) as { object: string }).object).toBe('list');
    const google = await fetch(`${harness.baseUrl}/v1/models`, { headers: { 'x-goog-api-key': key } });
    expect(((await google.json()) as { models: unknown[] }).models.length).toBeGreaterThan(0);
  });

  it('streamGenerateContent without alt=sse is a 400 saying so', async () => {
    const response = await fetch(`${harness.baseUrl}/v1/models/gpt-4o-mini:streamGenerateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { status: string; message: string } };
    expect(body.error.status).toBe('INVALID_ARGUMENT');
    expect(body.error.message).toContain('alt=sse');
  });
});
