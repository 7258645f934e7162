/**
 * A same-format stream's relay keeps none of the text it forwards: the tokens are counted as they
 * pass (for the estimate when the upstream reports no usage), so a long stream costs the gateway no
 * memory that grows with it.
 */
import { describe, expect, it } from 'vitest';
import { AnthropicStreamRelay } from './anthropic/stream-relay.ts';
import { CompletionTokenCounter } from './conversion/completion-token-counter.ts';
import { estimateStreamUsage } from './estimate-usage.ts';
import { ResponsesStreamRelay } from './openai/responses-native.ts';
import { OpenAIStreamRelay } from './openai/stream-relay.ts';
import type { StreamRelay } from './provider.ts';
import { countTokens } from './tokenizer.ts';

const PIECE = 'a few words of a long reply, ';
const PIECES = 20_000;

function relayed(relay: StreamRelay, frame: (text: string) => { event?: string; data: string }) {
  for (let index = 0; index < PIECES; index++) relay.onEvent(frame(PIECE));
  return relay.outcome();
}

const cases: Array<[string, () => StreamRelay, (text: string) => { event?: string; data: string }]> = [
  [
    'OpenAI chat',
    () => new OpenAIStreamRelay({ hideUsageChunk: false }),
    (text) => ({ data: JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] }) }),
  ],
  [
    'Anthropic messages',
    () => new AnthropicStreamRelay(),
    (text) => ({
      event: 'content_block_delta',
      data: JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
    }),
  ],
  [
    'native Responses',
    () => new ResponsesStreamRelay(),
    (text) => ({
      event: 'response.output_text.delta',
      data: JSON.stringify({ type: 'response.output_text.delta', delta: text }),
    }),
  ],
];

describe('a same-format stream relay', () => {
  it.each(cases)('%s: counts the completion as it passes and keeps no text', (_name, create, frame) => {
    const outcome = relayed(create(), frame);
    expect(outcome.completionText).toBe('');
    // As a converted stream counts it: exactly for its first 16 K characters, extrapolated past them.
    const counter = new CompletionTokenCounter();
    for (let index = 0; index < PIECES; index++) counter.add(PIECE);
    expect(outcome.completionTokens).toBe(counter.tokens);
    const whole = countTokens(PIECE.repeat(PIECES));
    expect(Math.abs(outcome.completionTokens! - whole) / whole).toBeLessThan(0.25);
    expect(estimateStreamUsage({ messages: [] }, outcome).completionTokens).toBe(outcome.completionTokens);
  });
});
