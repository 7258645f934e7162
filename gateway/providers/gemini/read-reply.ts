/**
 * @module gateway/providers/gemini/read-reply
 * A whole `GenerateContentResponse` as a neutral reply: the first candidate's parts in order, thought
 * parts as reasoning and their signatures carried as thought-signature.ts says. Gemini sends function
 * call ids only sometimes; a call without one gets an id made of the response id and its position, so
 * that the client's tool result can name it. A prompt Google blocked has no candidate, and is a reply
 * ended by the content filter.
 */
import type { GeminiPart } from '../../../contracts/gemini/generate-content-request.ts';
import type { GeminiGenerateContentResponse } from '../../../contracts/gemini/generate-content-response.ts';
import type { Reply, ReplyBlock } from '../conversion/reply.ts';
import { finishReasonFromGemini } from './finish-reason.ts';
import { nextPartSignature, thoughtSignature } from './thought-signature.ts';
import { tokenCountsFromGemini } from './usage.ts';

export const callId = (responseId: string, index: number) => `call_${responseId || 'gemini'}_${index}`;

/** Text of a part when it is one (an upstream may send anything where a string belongs). */
const textOf = (part: GeminiPart) => (typeof part.text === 'string' ? part.text : '');

export function replyBlocks(parts: readonly GeminiPart[], responseId: string): ReplyBlock[] {
  const blocks: ReplyBlock[] = [];
  let calls = 0;
  for (const part of parts) {
    if (typeof part !== 'object' || part === null) continue;
    const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : '';
    if (part.thought === true) {
      // Thought text can come first and its signature after, on an empty thought part: one run.
      const last = blocks.at(-1);
      if (!textOf(part) && signature && last?.type === 'reasoning' && last.signature === '') {
        last.signature = thoughtSignature(signature);
        continue;
      }
      blocks.push({ type: 'reasoning', text: textOf(part), signature: signature && thoughtSignature(signature) });
      continue;
    }
    if (signature) {
      // The part's own signature rides on the reasoning block before it: unsigned thoughts, or a new empty one.
      const last = blocks.at(-1);
      if (last?.type === 'reasoning' && last.signature === '') last.signature = nextPartSignature(signature);
      else blocks.push({ type: 'reasoning', text: '', signature: nextPartSignature(signature) });
    }
    if (part.functionCall && typeof part.functionCall === 'object') {
      const call = part.functionCall;
      blocks.push({
        type: 'tool-call',
        id: typeof call.id === 'string' && call.id ? call.id : callId(responseId, calls),
        name: typeof call.name === 'string' ? call.name : '',
        arguments: JSON.stringify(call.args ?? {}),
      });
      calls++;
    } else if (textOf(part)) {
      const last = blocks.at(-1);
      if (last?.type === 'text') last.text += textOf(part);
      else blocks.push({ type: 'text', text: textOf(part) });
    }
  }
  return blocks;
}

export function readGeminiReply(response: Partial<GeminiGenerateContentResponse>): Reply {
  const candidate = response.candidates?.[0];
  const id = typeof response.responseId === 'string' ? response.responseId : '';
  const parts = Array.isArray(candidate?.content?.parts) ? candidate.content.parts : [];
  const blocks = replyBlocks(parts, id);
  const blocked = !candidate && response.promptFeedback?.blockReason !== undefined;
  const reply: Reply = {
    id,
    model: typeof response.modelVersion === 'string' ? response.modelVersion : '',
    blocks,
    finishReason: blocked
      ? 'content-filter'
      : finishReasonFromGemini(
          candidate?.finishReason,
          blocks.some((block) => block.type === 'tool-call'),
        ),
    stopSequence: null,
    usage: null,
  };
  reply.usage = tokenCountsFromGemini(response.usageMetadata, reply);
  return reply;
}
