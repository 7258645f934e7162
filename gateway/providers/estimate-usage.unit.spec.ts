import { describe, expect, it } from 'vitest';
import { estimatePromptTokens } from './estimate-usage.ts';
import { countTokens } from './tokenizer.ts';

describe('estimatePromptTokens on a Responses body (a native upstream that reports no usage)', () => {
  const story = 'Tell me a long story about a lighthouse keeper and the sea.';

  it('counts a string input and the instructions as a chat body with the same text', () => {
    const chat = estimatePromptTokens({
      system: 'Be brief.',
      messages: [{ role: 'user', content: story }],
    });
    expect(estimatePromptTokens({ instructions: 'Be brief.', input: story })).toBe(chat);
    expect(chat).toBeGreaterThan(countTokens(story));
  });

  it('counts the text of message items, function calls and their outputs', () => {
    const tokens = estimatePromptTokens({
      input: [
        { role: 'user', content: [{ type: 'input_text', text: story }] },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '18 degrees and sunny' },
      ],
    });
    const text = countTokens(story) + countTokens('{"city":"Paris"}') + countTokens('18 degrees and sunny');
    expect(tokens).toBeGreaterThanOrEqual(text);
  });
});
