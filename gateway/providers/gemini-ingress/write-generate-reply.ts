/**
 * @module gateway/providers/gemini-ingress/write-generate-reply
 * A neutral reply as Gemini's `GenerateContentResponse`: one candidate whose parts keep the reply's
 * order (text, thoughts when asked for, function calls with their ids and arguments as objects), the
 * finish reason and the usage in Google's words. A thought's signature goes out as its
 * `thoughtSignature`, which the client sends back on the next turn (read-contents.ts); redacted
 * thinking has no Gemini form and is left out.
 */
import type { GeminiPart } from '../../../contracts/gemini/generate-content-request.ts';
import type { GeminiGenerateContentResponse } from '../../../contracts/gemini/generate-content-response.ts';
import type { Reply, ReplyBlock } from '../conversion/reply.ts';
import { parseToolArguments } from '../conversion/tool-arguments.ts';
import type { TokenCounts } from '../provider.ts';
import { geminiFinishReason, includesThoughts, usageMetadata } from './write-usage.ts';

export function functionCallPart(id: string, name: string, argumentsText: string): GeminiPart {
  const args = parseToolArguments(argumentsText) ?? {};
  return { functionCall: { id, name, args } };
}

function part(block: ReplyBlock, thoughts: boolean): GeminiPart[] {
  switch (block.type) {
    case 'text':
      return block.text ? [{ text: block.text }] : [];
    case 'reasoning':
      if (!thoughts) return [];
      return [{ text: block.text, thought: true, ...(block.signature && { thoughtSignature: block.signature }) }];
    case 'redacted-reasoning':
      return [];
    case 'tool-call':
      return [functionCallPart(block.id, block.name, block.arguments)];
  }
}

export function writeGenerateReply(
  reply: Reply & { usage: TokenCounts },
  body: Record<string, unknown>,
): GeminiGenerateContentResponse {
  const thoughts = includesThoughts(body);
  return {
    candidates: [
      {
        content: { role: 'model', parts: reply.blocks.flatMap((block) => part(block, thoughts)) },
        finishReason: geminiFinishReason(reply.finishReason),
        index: 0,
      },
    ],
    usageMetadata: usageMetadata(reply.usage),
    modelVersion: reply.model,
    responseId: reply.id,
  };
}
