/**
 * @module gateway/providers/openai/responses-reply-text
 * The text a whole Responses reply generated, for the tokenizer estimate when its usage is missing or
 * refused: the same pieces its stream sends as deltas (output text, refusals, reasoning text and
 * summaries, function-call arguments, custom tool input), so that one reply is estimated alike streamed
 * or not. The reply's JSON around them (ids, types, annotations) is not generated text.
 */

type Fields = Record<string, unknown>;

const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const textsOf = (parts: unknown): string[] =>
  Array.isArray(parts)
    ? parts
        .filter(isFields)
        .flatMap((part) => [part['text'], part['refusal']].filter((text) => typeof text === 'string'))
    : [];

export function responsesReplyText(output: unknown): string {
  if (!Array.isArray(output)) return '';
  const pieces: string[] = [];
  for (const item of output.filter(isFields)) {
    if (item['type'] === 'function_call' && typeof item['arguments'] === 'string') pieces.push(item['arguments']);
    if (item['type'] === 'custom_tool_call' && typeof item['input'] === 'string') pieces.push(item['input']);
    pieces.push(...textsOf(item['summary']), ...textsOf(item['content']));
  }
  return pieces.join('');
}
