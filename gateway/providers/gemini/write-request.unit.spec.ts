import { describe, expect, it } from 'vitest';
import type { NeutralRequest } from '../../../contracts/neutral/request.ts';
import { GatewayError } from '../../errors.ts';
import { SKIPPED_SIGNATURE } from './thought-signature.ts';
import { writeGeminiRequest } from './write-request.ts';

const base: NeutralRequest = {
  model: 'gemini-2.5-flash',
  system: [],
  turns: [],
  tools: [],
  sampling: {},
  stream: false,
};
const request = (fields: Partial<NeutralRequest>): NeutralRequest => ({ ...base, ...fields });

describe('neutral request → generateContent body', () => {
  it('writes system, turns, media, sampling and leaves the model out of the body', () => {
    const { body, warnings, answerTool } = writeGeminiRequest(
      request({
        system: ['Be brief.', 'Answer in English.'],
        turns: [
          {
            role: 'user',
            parts: [
              { type: 'text', text: 'What is in these?' },
              { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' },
              { type: 'image', url: 'https://example.com/cat.jpg?size=2' },
              { type: 'file', data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' },
            ],
          },
        ],
        sampling: { maxOutputTokens: 300, temperature: 0.2, topP: 0.9, stop: ['a', 'b', 'c', 'd', 'e', 'f'] },
      }),
    );
    expect(body).toEqual({
      systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Answer in English.' }] },
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'What is in these?' },
            { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
            { fileData: { fileUri: 'https://example.com/cat.jpg?size=2', mimeType: 'image/jpeg' } },
            { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
          ],
        },
      ],
      generationConfig: {
        temperature: 0.2,
        topP: 0.9,
        maxOutputTokens: 300,
        stopSequences: ['a', 'b', 'c', 'd', 'e'],
      },
    });
    expect(warnings).toEqual(['stop sequences after the first 5 dropped']);
    expect(answerTool).toBeNull();
  });

  it('writes tools, tool choice, calls and their results named after the call', () => {
    const { body } = writeGeminiRequest(
      request({
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] },
          {
            role: 'assistant',
            parts: [{ type: 'tool-call', id: 'toolu_01', name: 'get_weather', arguments: '{"city":"Paris"}' }],
          },
          {
            role: 'user',
            parts: [
              { type: 'tool-result', callId: 'toolu_01', output: '{"temperature":18}' },
              { type: 'tool-result', callId: 'toolu_01', output: 'sunny' },
            ],
          },
        ],
        tools: [
          {
            name: 'get_weather',
            description: 'Current weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
          { name: 'now', parameters: { type: 'object', properties: {} } },
        ],
        toolChoice: { name: 'get_weather' },
      }),
    );
    expect(body['tools']).toEqual([
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Current weather',
            parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
          },
          { name: 'now' },
        ],
      },
    ]);
    expect(body['toolConfig']).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
    });
    expect(body['contents']).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      // A call whose signature was lost gets the placeholder Google documents.
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: SKIPPED_SIGNATURE },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { temperature: 18 } } },
          { functionResponse: { name: 'get_weather', response: { result: 'sunny' } } },
        ],
      },
    ]);
  });

  it('an exact thinking budget wins over the effort; topK and failed or illustrated tool results go through', () => {
    const { body } = writeGeminiRequest(
      request({
        turns: [
          { role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'shot', arguments: '{}' }] },
          {
            role: 'user',
            parts: [
              {
                type: 'tool-result',
                callId: 'c1',
                output: 'camera offline',
                isError: true,
                content: [
                  { type: 'text', text: 'camera offline' },
                  { type: 'image', url: 'data:image/png;base64,AAAA' },
                ],
              },
            ],
          },
        ],
        sampling: { topK: 40 },
        reasoning: { effort: 'low', budgetTokens: 3000 },
      }),
    );
    expect(body['generationConfig']).toEqual({
      topK: 40,
      thinkingConfig: { thinkingBudget: 3000, includeThoughts: true },
    });
    expect((body['contents'] as unknown[])[1]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { name: 'shot', response: { error: 'camera offline' } } },
        { inlineData: { mimeType: 'image/png', data: 'AAAA' } },
      ],
    });
  });

  it.each([
    ['auto', 'AUTO'],
    ['none', 'NONE'],
    ['required', 'ANY'],
  ] as const)('tool choice %s is mode %s', (choice, mode) => {
    const { body } = writeGeminiRequest(request({ tools: [{ name: 'f' }], toolChoice: choice }));
    expect(body['toolConfig']).toEqual({ functionCallingConfig: { mode } });
  });

  it('sends Gemini’s signatures back where Google put them, and no other upstream’s', () => {
    const { body } = writeGeminiRequest(
      request({
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'Go' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'thinking', text: 'Signed thought', signature: 'gemini:SIG1' },
              { type: 'thinking', text: 'Unsigned summary', signature: 'gemini-next:SIG2' },
              { type: 'tool-call', id: 'c1', name: 'f', arguments: '' },
              { type: 'tool-call', id: 'c2', name: 'f', arguments: '{}' },
              { type: 'thinking', text: 'Claude thought', signature: 'EqQBCkgIARABGAIiQL' },
              { type: 'redacted-thinking', data: 'xyz' },
              { type: 'redacted-thinking', data: 'gemini-next:SIG3' },
              { type: 'text', text: 'Done' },
            ],
          },
        ],
      }),
    );
    expect((body['contents'] as unknown[])[1]).toEqual({
      role: 'model',
      parts: [
        { thought: true, text: 'Signed thought', thoughtSignature: 'SIG1' },
        { functionCall: { name: 'f', args: {} }, thoughtSignature: 'SIG2' },
        { functionCall: { name: 'f', args: {} } },
        { text: 'Done', thoughtSignature: 'SIG3' },
      ],
    });
  });

  it('a reasoning effort is a thinking budget with thoughts shown; structured output is native', () => {
    const { body, answerTool } = writeGeminiRequest(
      request({
        turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
        reasoning: { effort: 'medium' },
        responseFormat: {
          type: 'json-schema',
          name: 'answer',
          schema: {
            type: 'object',
            properties: { n: { type: 'integer' } },
            required: ['n'],
            additionalProperties: false,
          },
        },
      }),
    );
    expect(body['generationConfig']).toEqual({
      responseMimeType: 'application/json',
      responseSchema: { type: 'OBJECT', properties: { n: { type: 'INTEGER' } }, required: ['n'] },
      thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
    });
    expect(answerTool).toBeNull();
    const minimal = writeGeminiRequest(request({ reasoning: { effort: 'minimal' } })).body;
    expect(minimal['generationConfig']).toEqual({ thinkingConfig: { thinkingBudget: 512, includeThoughts: true } });
    const json = writeGeminiRequest(request({ responseFormat: { type: 'json-object' } })).body;
    expect(json['generationConfig']).toEqual({ responseMimeType: 'application/json' });
  });

  it.each([
    [
      request({ turns: [{ role: 'user', parts: [{ type: 'tool-result', callId: 'nope', output: 'x' }] }] }),
      'answers no tool call',
    ],
    [request({ turns: [{ role: 'user', parts: [{ type: 'file', fileId: 'file-abc123' }] }] }), 'file-abc123'],
    [
      request({
        turns: [{ role: 'assistant', parts: [{ type: 'tool-call', id: 'c', name: 'f', arguments: '[1]' }] }],
      }),
      'not a JSON object',
    ],
    [request({ tools: [{ name: 'f', parameters: { type: 'object', allOf: [] } }] }), '`allOf`'],
  ])('refuses what Gemini cannot take with a 400 (%#)', (input, said) => {
    expect(() => writeGeminiRequest(input)).toThrow(GatewayError);
    expect(() => writeGeminiRequest(input)).toThrow(said);
  });
});
