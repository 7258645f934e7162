/**
 * The neutral request as a Converse body: roles merged so they alternate, system blocks, inference
 * settings, tools and tool choice, tool use and results, signed reasoning sent back, images and
 * documents as bytes (URLs refused), reasoning effort as Claude's thinking with its conflicts removed,
 * and a JSON response format as a forced answer tool.
 */
import { describe, expect, it } from 'vitest';
import type { NeutralRequest } from '../../../contracts/neutral/request.ts';
import { GatewayError } from '../../errors.ts';
import { writeConverseRequest } from './write-converse-request.ts';

const base: NeutralRequest = {
  model: 'claude',
  system: [],
  turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hello' }] }],
  tools: [],
  sampling: {},
  stream: false,
};
const weather = {
  name: 'get_weather',
  description: 'Weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};

describe('writeConverseRequest', () => {
  it('writes messages, system and inference settings in Converse names', () => {
    const { body, warnings } = writeConverseRequest({
      ...base,
      system: ['Be brief.', ''],
      sampling: { maxOutputTokens: 256, temperature: 0.2, topP: 0.9, stop: ['END'] },
    });
    expect(body).toEqual({
      messages: [{ role: 'user', content: [{ text: 'Hello' }] }],
      system: [{ text: 'Be brief.' }],
      inferenceConfig: { maxTokens: 256, temperature: 0.2, topP: 0.9, stopSequences: ['END'] },
    });
    expect(warnings).toEqual([]);
  });

  it('writes a tool loop: tools, forced choice, tool use and results merged into alternating turns', () => {
    const { body } = writeConverseRequest({
      ...base,
      tools: [weather],
      toolChoice: { name: 'get_weather' },
      turns: [
        { role: 'user', parts: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
        {
          role: 'assistant',
          parts: [{ type: 'tool-call', id: 't1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
        },
        { role: 'assistant', parts: [{ type: 'tool-call', id: 't2', name: 'get_weather', arguments: 'not json' }] },
        { role: 'user', parts: [{ type: 'tool-result', callId: 't1', output: '18°C' }] },
        { role: 'user', parts: [{ type: 'tool-result', callId: 't2', output: '' }] },
      ],
    });
    expect(body['toolConfig']).toEqual({
      tools: [{ toolSpec: { name: 'get_weather', description: 'Weather', inputSchema: { json: weather.parameters } } }],
      toolChoice: { tool: { name: 'get_weather' } },
    });
    expect(body['messages']).toEqual([
      { role: 'user', content: [{ text: 'Weather in Paris and Rome?' }] },
      {
        role: 'assistant',
        content: [
          { toolUse: { toolUseId: 't1', name: 'get_weather', input: { city: 'Paris' } } },
          { toolUse: { toolUseId: 't2', name: 'get_weather', input: {} } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 't1', content: [{ text: '18°C' }] } },
          { toolResult: { toolUseId: 't2', content: [{ text: ' ' }] } },
        ],
      },
    ]);
  });

  it('maps tool choices: required is any, auto is the default, none leaves the tools out', () => {
    expect(
      writeConverseRequest({ ...base, tools: [weather], toolChoice: 'required' }).body['toolConfig'],
    ).toMatchObject({
      toolChoice: { any: {} },
    });
    expect(
      writeConverseRequest({ ...base, tools: [weather], toolChoice: 'auto' }).body['toolConfig'],
    ).not.toHaveProperty('toolChoice');
    expect(writeConverseRequest({ ...base, tools: [weather], toolChoice: 'none' }).body).not.toHaveProperty(
      'toolConfig',
    );
  });

  it('sends signed reasoning back and drops unsigned reasoning with a warning', () => {
    const { body, warnings } = writeConverseRequest({
      ...base,
      turns: [
        base.turns[0]!,
        {
          role: 'assistant',
          parts: [
            { type: 'thinking', text: 'Think', signature: 'sig-1' },
            { type: 'redacted-thinking', data: 'cmVkYWN0ZWQ=' },
            { type: 'thinking', text: 'Unsigned', signature: '' },
            { type: 'text', text: 'Hi' },
          ],
        },
      ],
    });
    expect((body['messages'] as any[])[1].content).toEqual([
      { reasoningContent: { reasoningText: { text: 'Think', signature: 'sig-1' } } },
      { reasoningContent: { redactedContent: 'cmVkYWN0ZWQ=' } },
      { text: 'Hi' },
    ]);
    expect(warnings).toEqual(['thinking without a signature dropped: Bedrock accepts only signed reasoning back']);
  });

  it('drops thinking a Gemini channel signed (after a failover): Claude cannot verify it', () => {
    const { body, warnings } = writeConverseRequest({
      ...base,
      turns: [
        base.turns[0]!,
        {
          role: 'assistant',
          parts: [
            { type: 'thinking', text: 'Gemini thought', signature: 'gemini:c2lnbmVk' },
            { type: 'text', text: 'Hi' },
          ],
        },
      ],
    });
    expect((body['messages'] as any[])[1].content).toEqual([{ text: 'Hi' }]);
    expect(warnings).toEqual(["thinking signed by Gemini dropped: only Gemini verifies Gemini's signatures"]);
  });

  it('sends images and documents as bytes, and refuses them by URL', () => {
    const { body } = writeConverseRequest({
      ...base,
      turns: [
        {
          role: 'user',
          parts: [
            { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' },
            { type: 'file', data: 'data:application/pdf;base64,JVBERi0x', filename: 'q3 report (final).pdf' },
          ],
        },
      ],
    });
    expect((body['messages'] as any[])[0].content).toEqual([
      { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } },
      { document: { format: 'pdf', name: 'q3 report (final)', source: { bytes: 'JVBERi0x' } } },
    ]);
    const byUrl = () =>
      writeConverseRequest({
        ...base,
        turns: [{ role: 'user', parts: [{ type: 'image', url: 'https://example.com/a.png' }] }],
      });
    expect(byUrl).toThrow(GatewayError);
    expect(byUrl).toThrow(/Bedrock takes images as data only/);
  });

  it("turns reasoning effort into Claude's thinking and removes what thinking refuses", () => {
    const { body, warnings } = writeConverseRequest({
      ...base,
      tools: [weather],
      toolChoice: 'required',
      reasoning: { effort: 'medium' },
      sampling: { temperature: 0.3, topP: 0.5 },
    });
    expect(body['additionalModelRequestFields']).toEqual({ thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(body['inferenceConfig']).toEqual({ maxTokens: 4096 + 2048 });
    expect(body['toolConfig']).not.toHaveProperty('toolChoice');
    expect(warnings).toEqual([
      'temperature dropped: extended thinking requires the default temperature',
      'top_p dropped: extended thinking allows only 0.95 to 1',
      'tool_choice relaxed to auto: extended thinking cannot force a tool',
    ]);
  });

  it('does not turn thinking on for a tool loop whose assistant turn has none', () => {
    const { body, warnings } = writeConverseRequest({
      ...base,
      reasoning: { effort: 'high' },
      tools: [weather],
      turns: [
        base.turns[0]!,
        { role: 'assistant', parts: [{ type: 'tool-call', id: 't1', name: 'get_weather', arguments: '{}' }] },
        { role: 'user', parts: [{ type: 'tool-result', callId: 't1', output: 'sunny' }] },
      ],
    });
    expect(body).not.toHaveProperty('additionalModelRequestFields');
    expect(warnings[0]).toMatch(/thinking not enabled for this turn/);
  });

  it('makes a JSON schema response format a forced answer tool', () => {
    const written = writeConverseRequest({
      ...base,
      responseFormat: {
        type: 'json-schema',
        name: 'answer',
        schema: { type: 'object', properties: { n: { type: 'number' } } },
      },
    });
    expect(written.answerTool).toBe('answer');
    expect(written.body['toolConfig']).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'answer',
            description: expect.any(String),
            inputSchema: { json: { type: 'object', properties: { n: { type: 'number' } } } },
          },
        },
      ],
      toolChoice: { tool: { name: 'answer' } },
    });
  });
});
