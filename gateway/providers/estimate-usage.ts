/**
 * @module gateway/providers/estimate-usage
 * When an upstream sends no usage (some OpenAI-compatible servers, or a stream cut short), tokens are
 * counted with a real BPE tokenizer (o200k_base, via gpt-tokenizer) rather than a character ratio,
 * and the usage event is marked `estimated`.
 */

import type { TokenCounts } from './provider.ts';
import { countingBudget, countTokens } from './tokenizer.ts';

/** OpenAI's documented framing cost: a few tokens per message plus the reply primer. */
const TOKENS_PER_MESSAGE = 3;
const REPLY_PRIMER = 3;
/** A flat cost per image part: the low-detail figure, since the real size is unknown here. */
const TOKENS_PER_IMAGE = 85;

function textOf(content: unknown): { text: string; images: number } {
  if (typeof content === 'string') return { text: content, images: 0 };
  if (!Array.isArray(content))
    return { text: content === undefined || content === null ? '' : JSON.stringify(content), images: 0 };
  let text = '';
  let images = 0;
  for (const item of content as unknown[]) {
    // Only the envelope was checked (a same-format body is the upstream's to judge): skip what is not a part.
    if (typeof item !== 'object' || item === null) continue;
    const part = item as Record<string, unknown>;
    if (part['type'] === 'image_url' || part['type'] === 'image' || part['inlineData'] || part['fileData']) images++;
    else if (typeof part['text'] === 'string') text += part['text'];
    // Gemini's parts: a function call's arguments, a function's response.
    else if (part['functionCall']) text += JSON.stringify(part['functionCall']);
    else if (part['functionResponse']) text += JSON.stringify(part['functionResponse']);
    else if (part['type'] === 'tool_use') text += JSON.stringify(part['input'] ?? {});
    else if (part['type'] === 'tool_result') text += textOf(part['content']).text;
  }
  return { text, images };
}

/**
 * A Responses body's `input`, as messages: one for a string, else one per item, whose text is its
 * content, a function call's arguments or a call's output.
 */
function responsesInput(input: unknown): Array<Record<string, unknown>> {
  if (typeof input === 'string') return [{ content: input }];
  if (!Array.isArray(input)) return [];
  return (input as Array<Record<string, unknown>>).map((item) => ({
    content: item['content'] ?? item['output'] ?? item['arguments'] ?? '',
  }));
}

/** A Gemini body's `contents`, as messages whose content is their parts. */
function geminiContents(contents: unknown[]): Array<Record<string, unknown>> {
  return contents.map((content) => ({ content: (content as { parts?: unknown } | null)?.parts ?? '' }));
}

export function estimatePromptTokens(body: Record<string, unknown>): number {
  const messages = Array.isArray(body['messages'])
    ? (body['messages'] as Array<Record<string, unknown>>)
    : Array.isArray(body['contents'])
      ? geminiContents(body['contents'])
      : responsesInput(body['input']);
  let tokens = REPLY_PRIMER;
  // One budget for the whole prompt: a body of many long messages costs no more to estimate than one.
  const budget = countingBudget();
  const geminiSystem = (body['systemInstruction'] as { parts?: unknown } | undefined)?.parts;
  const system = textOf(body['system'] ?? body['instructions'] ?? geminiSystem);
  if (system.text) tokens += TOKENS_PER_MESSAGE + countTokens(system.text, budget);
  for (const message of messages) {
    const { text, images } = textOf(message['content']);
    const toolCalls = message['tool_calls'] ? JSON.stringify(message['tool_calls']) : '';
    tokens += TOKENS_PER_MESSAGE + countTokens(text + toolCalls, budget) + images * TOKENS_PER_IMAGE;
  }
  if (Array.isArray(body['tools'])) tokens += countTokens(JSON.stringify(body['tools']), budget);
  return tokens;
}

/** A stream's usage when the upstream reported none: its completion as its relay counted it, else its text. */
export function estimateStreamUsage(
  body: Record<string, unknown>,
  outcome: { completionText: string; completionTokens?: number | undefined },
): TokenCounts {
  const usage = estimateUsage(body, outcome.completionText);
  if (outcome.completionTokens !== undefined) usage.completionTokens += outcome.completionTokens;
  return usage;
}

export function estimateUsage(body: Record<string, unknown>, completionText: string): TokenCounts {
  return {
    promptTokens: estimatePromptTokens(body),
    completionTokens: completionText ? countTokens(completionText) : 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
}
