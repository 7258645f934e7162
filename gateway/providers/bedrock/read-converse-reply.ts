/**
 * @module gateway/providers/bedrock/read-converse-reply
 * A whole Converse reply as the neutral reply. Every field is the upstream's to choose, so each is
 * checked for its type as it is read; a block of a type with no neutral counterpart (citations,
 * guard content, images) is left out. Converse names neither the reply's id nor the model: the id is
 * the gateway's own, the model is left empty.
 */
import type { ReplyBlock } from '../../../contracts/neutral/reply.ts';
import type { Reply } from '../conversion/reply.ts';
import { bedrockReplyId, finishReasonFromBedrock } from './stop-reason.ts';
import { tokenCountsFromBedrock } from './usage.ts';

type Loose = Record<string, unknown>;

const isObject = (value: unknown): value is Loose =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const text = (value: unknown) => (typeof value === 'string' ? value : '');

function reasoningBlock(reasoning: Loose): ReplyBlock[] {
  if (isObject(reasoning['reasoningText'])) {
    const { text: thought, signature } = reasoning['reasoningText'];
    return [{ type: 'reasoning', text: text(thought), signature: text(signature) }];
  }
  if (typeof reasoning['redactedContent'] === 'string') {
    return [{ type: 'redacted-reasoning', data: reasoning['redactedContent'] }];
  }
  return [];
}

function block(content: unknown): ReplyBlock[] {
  if (!isObject(content)) return [];
  if (typeof content['text'] === 'string') return [{ type: 'text', text: content['text'] }];
  if (isObject(content['toolUse'])) {
    const { toolUseId, name, input } = content['toolUse'];
    return [{ type: 'tool-call', id: text(toolUseId), name: text(name), arguments: JSON.stringify(input ?? {}) }];
  }
  if (isObject(content['reasoningContent'])) return reasoningBlock(content['reasoningContent']);
  return [];
}

export function readConverseReply(body: unknown): Reply {
  const reply = isObject(body) ? body : {};
  const output = isObject(reply['output']) ? reply['output'] : {};
  const message = isObject(output['message']) ? output['message'] : {};
  const content = Array.isArray(message['content']) ? message['content'] : [];
  const read: Reply = {
    id: bedrockReplyId(),
    model: '',
    blocks: content.flatMap(block),
    finishReason: finishReasonFromBedrock(reply['stopReason']),
    stopSequence: null,
    usage: null,
  };
  read.usage = tokenCountsFromBedrock(reply['usage'], read);
  return read;
}
