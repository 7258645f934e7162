import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors.ts';
import { jsonSchemaOf } from './json-schema.ts';
import { readGenerateRequest } from './read-generate-request.ts';
import { writeGenerateReply } from './write-generate-reply.ts';
import { GenerateStreamWriter } from './write-generate-stream.ts';
import { usageMetadata } from './write-usage.ts';

const read = (body: Record<string, unknown>, stream = false) =>
  readGenerateRequest(body as never, { target: 'OpenAI', model: 'gpt-4o-mini', stream });

const usage = { promptTokens: 10, completionTokens: 7, cachedTokens: 4, cacheWriteTokens: 0, reasoningTokens: 3 };

describe('Gemini request → neutral', () => {
  it('reads contents, a call without an id and its response by name, images and signed thoughts', () => {
    const { request, warnings } = read(
      {
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        contents: [
          { parts: [{ text: 'Look' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] },
          {
            role: 'model',
            parts: [
              { text: 'hmm', thought: true, thoughtSignature: 'sig' },
              { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
            ],
          },
          { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: 'sunny' } } }] },
          { role: 'user', parts: [{ executableCode: { code: 'x' } }] },
        ],
      },
      true,
    );
    expect(request.system).toEqual(['Be brief.']);
    expect(request.stream).toBe(true);
    expect(request.turns).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'Look' },
          { type: 'image', url: 'data:image/png;base64,AAAA' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'thinking', text: 'hmm', signature: 'sig' },
          { type: 'tool-call', id: 'call_1_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        ],
      },
      { role: 'user', parts: [{ type: 'tool-result', callId: 'call_1_1', output: 'sunny' }] },
    ]);
    expect(warnings).toEqual(['executableCode part dropped: no OpenAI equivalent']);
  });

  it('reads tools, tool choice and the generation config', () => {
    const { request, warnings } = read({
      contents: [{ parts: [{ text: 'x' }] }],
      tools: [
        {
          functionDeclarations: [
            { name: 'f', parameters: { type: 'OBJECT', properties: { n: { type: 'INTEGER', nullable: true } } } },
          ],
        },
        { googleSearch: {} },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } },
      generationConfig: {
        temperature: 0.3,
        maxOutputTokens: 50,
        stopSequences: ['END'],
        responseMimeType: 'application/json',
        responseSchema: { type: 'OBJECT', properties: { a: { type: 'STRING' } } },
        thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
        seed: 1,
      },
    });
    expect(request.tools).toEqual([
      { name: 'f', parameters: { type: 'object', properties: { n: { type: ['integer', 'null'] } } } },
    ]);
    expect(request.toolChoice).toEqual({ name: 'f' });
    expect(request.sampling).toEqual({ temperature: 0.3, maxOutputTokens: 50, stop: ['END'] });
    expect(request.responseFormat).toEqual({
      type: 'json-schema',
      name: 'response',
      schema: { type: 'object', properties: { a: { type: 'string' } } },
    });
    expect(request.reasoning).toEqual({ effort: 'medium', budgetTokens: 2048 });
    expect(warnings).toEqual([
      'googleSearch tool dropped: no OpenAI equivalent',
      'generationConfig.seed dropped: no OpenAI equivalent',
    ]);
  });

  it.each([
    [{ generationConfig: { candidateCount: 2 } }, 'generationConfig.candidateCount'],
    [{ generationConfig: { responseMimeType: 'text/x.enum' } }, 'generationConfig.responseMimeType'],
    [{ cachedContent: 'cachedContents/abc' }, 'cachedContent'],
    [{ contents: [{ parts: [{ functionResponse: { name: 'f', response: {} } }] }] }, 'contents[0].parts[0]'],
    [
      { contents: [{ parts: [{ fileData: { fileUri: 'files/abc', mimeType: 'application/pdf' } }] }] },
      'contents[0].parts[0]',
    ],
  ])('refuses %j', (body, param) => {
    let error: unknown;
    try {
      read({ contents: [{ parts: [{ text: 'x' }] }], ...body });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).param).toBe(param);
  });

  it('Google schemas become JSON schemas', () => {
    expect(
      jsonSchemaOf({
        type: 'ARRAY',
        items: { type: 'string', enum: ['a'] },
        minItems: '1',
        propertyOrdering: ['x'],
        example: 'a',
      }),
    ).toEqual({ type: 'array', items: { type: 'string', enum: ['a'] }, minItems: 1, examples: ['a'] });
  });
});

describe('neutral reply → Gemini', () => {
  it('a whole reply: parts in order, thoughts only when asked for, Google’s usage', () => {
    const reply = {
      id: 'r1',
      model: 'm',
      blocks: [
        { type: 'reasoning' as const, text: 'think', signature: 's' },
        { type: 'text' as const, text: 'Hi' },
        { type: 'tool-call' as const, id: 'c1', name: 'f', arguments: '{"a":1}' },
      ],
      finishReason: 'tool-calls' as const,
      stopSequence: null,
      usage,
    };
    expect(writeGenerateReply(reply, {}).candidates![0]!.content!.parts).toEqual([
      { text: 'Hi' },
      { functionCall: { id: 'c1', name: 'f', args: { a: 1 } } },
    ]);
    const withThoughts = writeGenerateReply(reply, { generationConfig: { thinkingConfig: { includeThoughts: true } } });
    expect(withThoughts.candidates![0]!.content!.parts![0]).toEqual({
      text: 'think',
      thought: true,
      thoughtSignature: 's',
    });
    expect(withThoughts.candidates![0]!.finishReason).toBe('STOP');
    expect(withThoughts.usageMetadata).toEqual(usageMetadata(usage));
  });

  it('usageMetadata: thoughts apart from candidates, cached content counted', () => {
    expect(usageMetadata(usage)).toEqual({
      promptTokenCount: 10,
      candidatesTokenCount: 4,
      thoughtsTokenCount: 3,
      cachedContentTokenCount: 4,
      totalTokenCount: 17,
    });
  });

  it('a stream: text as it comes, a function call whole, the finish reason and usage last', () => {
    const writer = new GenerateStreamWriter({ includeThoughts: false });
    const events = [
      writer.write({ type: 'start', id: 'r1', model: 'm', usage: null }),
      writer.write({ type: 'reasoning-delta', text: 'hidden' }),
      writer.write({ type: 'text-delta', text: 'Hi' }),
      writer.write({ type: 'tool-call-start', toolIndex: 0, id: 'c1', name: 'f' }),
      writer.write({ type: 'tool-call-delta', toolIndex: 0, arguments: '{"a"' }),
      writer.write({ type: 'tool-call-delta', toolIndex: 0, arguments: ':1}' }),
      writer.write({ type: 'finish', reason: 'length', stopSequence: null }),
      writer.write({ type: 'usage', usage, estimated: false }),
      writer.write({ type: 'end' }),
    ]
      .join('')
      .split('\r\n\r\n')
      .filter(Boolean)
      .map((event) => JSON.parse(event.slice('data: '.length)));
    expect(events.map((event) => event.candidates[0].content.parts)).toEqual([
      [{ text: 'Hi' }],
      [{ functionCall: { id: 'c1', name: 'f', args: { a: 1 } } }],
      [{ text: '' }],
    ]);
    expect(events.at(-1)).toMatchObject({
      candidates: [{ finishReason: 'MAX_TOKENS' }],
      usageMetadata: { promptTokenCount: 10, totalTokenCount: 17 },
      responseId: 'r1',
      modelVersion: 'm',
    });
  });

  it('an error after the 200 is Google’s error event', () => {
    const writer = new GenerateStreamWriter({ includeThoughts: false });
    const frame = writer.write({ type: 'error', errorType: 'overloaded_error', message: 'busy' });
    expect(JSON.parse(frame.slice('data: '.length))).toEqual({
      error: { code: 503, message: 'busy', status: 'UNAVAILABLE' },
    });
  });
});
