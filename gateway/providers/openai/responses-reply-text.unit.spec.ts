/**
 * A native Responses reply whose usage is refused is estimated from the text it generated, the same
 * whether it was streamed (its deltas) or not (its output items), not from the reply's JSON.
 */
import { describe, expect, it } from 'vitest';
import { loadJsonFixture, parseStreamChunks } from '../../../test/fake-upstream/fixtures.ts';
import { estimateUsage } from '../estimate-usage.ts';
import { countTokens } from '../tokenizer.ts';
import { openAIResponsesNative, ResponsesStreamRelay } from './responses-native.ts';
import { responsesReplyText } from './responses-reply-text.ts';

const refusedUsage = { input_tokens: 'many', output_tokens: 11 };

describe('a refused Responses usage', () => {
  it('is estimated alike streamed and not', () => {
    const body = { ...(loadJsonFixture('openai-responses-text').body as object), usage: refusedUsage };
    const whole = openAIResponsesNative.readResponse(body, {} as never);
    expect(whole.usage).toBeNull();
    expect(whole.usageRefused).toContain('was a string');

    const relay = new ResponsesStreamRelay();
    for (const chunk of parseStreamChunks('openai-responses-text-stream') as Array<Record<string, any>>) {
      const event =
        chunk.type === 'response.completed'
          ? { ...chunk, response: { ...chunk.response, usage: refusedUsage } }
          : chunk;
      relay.onEvent({ event: event.type, data: JSON.stringify(event) });
    }
    const streamed = relay.outcome();
    expect(streamed.usage).toBeNull();

    const text = 'Hello! How can I help you today?';
    expect(whole.completionText).toBe(text);
    expect(estimateUsage({}, whole.completionText).completionTokens).toBe(streamed.completionTokens);
    expect(streamed.completionTokens).toBe(countTokens(text));
  });

  it('counts every kind of generated text in the output items, and nothing else', () => {
    const output = [
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Think. ' }] },
      { type: 'message', id: 'msg_1', content: [{ type: 'output_text', text: 'Hi. ', annotations: [] }] },
      { type: 'message', id: 'msg_2', content: [{ type: 'refusal', refusal: 'No. ' }] },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{"a":1}' },
      { type: 'custom_tool_call', id: 'ct_1', call_id: 'call_2', name: 'g', input: 'patch' },
      'not an item',
    ];
    expect(responsesReplyText(output)).toBe('Think. Hi. No. {"a":1}patch');
    expect(responsesReplyText(undefined)).toBe('');
  });
});
