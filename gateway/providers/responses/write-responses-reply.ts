/**
 * @module gateway/providers/responses/write-responses-reply
 * The Responses writer for whole replies: a neutral reply as a `response` object. Blocks become output
 * items in order (reasoning, message, function_call); consecutive text blocks share one message.
 * Reasoning carries its text as a summary and Anthropic's signature as `encrypted_content`, so a
 * client that sends the item back continues a thinking tool loop. A tool call is named as the client
 * knows the tool (client-tools.ts), and a custom tool's call carries its text (custom-tools.ts).
 */
import type { NeutralReply } from '../../../contracts/neutral/reply.ts';
import type { TokenCounts } from '../../../contracts/neutral/usage.ts';
import type { ResponsesRequest } from '../../../contracts/openai/responses-request.ts';
import type { ResponsesObject, ResponsesOutputItem } from '../../../contracts/openai/responses-response.ts';
import { callName, clientCall, clientTools } from './client-tools.ts';
import { customInput } from './custom-tools.ts';
import { itemId, outputText, responseFrame, responseId, responsesUsage, statusOf } from './response-frame.ts';

function outputItems(reply: NeutralReply, id: string, request: ResponsesRequest): ResponsesOutputItem[] {
  const output: ResponsesOutputItem[] = [];
  const tools = clientTools(request);
  for (const block of reply.blocks) {
    const last = output.at(-1);
    switch (block.type) {
      case 'text':
        if (last?.type === 'message') last.content.push({ type: 'output_text', text: block.text, annotations: [] });
        else
          output.push({
            type: 'message',
            id: itemId('msg', id, output.length),
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: block.text, annotations: [] }],
          });
        break;
      case 'reasoning':
        output.push({
          type: 'reasoning',
          id: itemId('rs', id, output.length),
          summary: block.text ? [{ type: 'summary_text', text: block.text }] : [],
          ...(block.signature && { encrypted_content: block.signature }),
        });
        break;
      case 'redacted-reasoning':
        output.push({
          type: 'reasoning',
          id: itemId('rs', id, output.length),
          summary: [],
          encrypted_content: block.data,
        });
        break;
      case 'tool-call': {
        const tool = clientCall(block.name, tools);
        output.push(
          tool.custom
            ? {
                type: 'custom_tool_call',
                id: itemId('ctc', id, output.length),
                call_id: block.id,
                ...callName(tool),
                input: customInput(block.arguments),
                status: 'completed',
              }
            : {
                type: 'function_call',
                id: itemId('fc', id, output.length),
                call_id: block.id,
                ...callName(tool),
                arguments: block.arguments,
                status: 'completed',
              },
        );
        break;
      }
    }
  }
  return output;
}

export function writeResponsesReply(
  reply: NeutralReply & { usage: TokenCounts },
  request: ResponsesRequest,
  createdAt: number,
): ResponsesObject {
  const id = responseId(reply.id);
  const output = outputItems(reply, id, request);
  return {
    ...responseFrame({ id, model: reply.model, createdAt, request }),
    ...statusOf(reply.finishReason),
    output,
    output_text: outputText(output),
    usage: responsesUsage(reply.usage),
  };
}
