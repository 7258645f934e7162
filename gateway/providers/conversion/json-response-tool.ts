/**
 * @module gateway/providers/conversion/json-response-tool
 * OpenAI's `response_format` for an Anthropic upstream, the way LiteLLM does it: the schema becomes the
 * input schema of one extra tool, the model is made to call it, and the call comes back to the client
 * as the message content (JSON text) with `finish_reason: stop`. It works on every Claude model, unlike
 * native structured outputs. The tool takes the schema's own name (e.g. `math_answer`), so the model
 * reads what it is for; `json_response` when that name is taken by a client tool or for `json_object`.
 * The request writer names the tool it added (`WrittenRequest.answerTool`); the reply side reads that.
 */
import type { NeutralRequest } from '../../../contracts/neutral/request.ts';
import type { Reply, ReplyBlock, ReplyPart, ReplyPartFilter } from './reply.ts';

export const DEFAULT_JSON_TOOL_NAME = 'json_response';

export interface JsonResponseTool {
  name: string;
  tool: { name: string; description: string; input_schema: Record<string, unknown> };
}

export function jsonResponseTool(request: Pick<NeutralRequest, 'responseFormat' | 'tools'>): JsonResponseTool | null {
  const format = request.responseFormat;
  if (format?.type !== 'json-schema' && format?.type !== 'json-object') return null;
  const taken = new Set(request.tools.map((tool) => tool.name));
  const wanted = format.type === 'json-schema' ? format.name : undefined;
  const name = wanted && !taken.has(wanted) ? wanted : DEFAULT_JSON_TOOL_NAME;
  const schema = format.type === 'json-schema' ? format.schema : undefined;
  const description = format.type === 'json-schema' ? format.description : undefined;
  return {
    name,
    tool: {
      name,
      description:
        description ??
        'Give your final answer by calling this tool: its input is the answer, as JSON matching the schema.',
      // Anthropic requires an object at the root; OpenAI's structured outputs require the same.
      input_schema: schema ? { type: 'object', ...schema } : { type: 'object', additionalProperties: true },
    },
  };
}

/** The JSON tool's call becomes content text; other tool calls are renumbered to close the gap. */
export class JsonToolToContent implements ReplyPartFilter {
  readonly #name: string;
  #jsonToolIndex: number | null = null;
  #otherTools = 0;

  constructor(name: string) {
    this.#name = name;
  }

  filter(part: ReplyPart): ReplyPart[] {
    switch (part.type) {
      case 'tool-call-start':
        if (part.name === this.#name && this.#jsonToolIndex === null) {
          this.#jsonToolIndex = part.toolIndex;
          return [];
        }
        this.#otherTools++;
        return [{ ...part, toolIndex: this.#renumber(part.toolIndex) }];
      case 'tool-call-delta':
        if (part.toolIndex === this.#jsonToolIndex)
          return part.arguments ? [{ type: 'text-delta', text: part.arguments }] : [];
        return [{ ...part, toolIndex: this.#renumber(part.toolIndex) }];
      case 'finish':
        return [this.#answered(part.reason) ? { ...part, reason: 'stop' } : part];
      default:
        return [part];
    }
  }

  #renumber(toolIndex: number): number {
    return this.#jsonToolIndex !== null && toolIndex > this.#jsonToolIndex ? toolIndex - 1 : toolIndex;
  }

  #answered(reason: string): boolean {
    return reason === 'tool-calls' && this.#jsonToolIndex !== null && this.#otherTools === 0;
  }
}

/**
 * Whole replies: the JSON tool's input is the content. Text the model wrote beside it is left out, so
 * that the content parses as JSON (a forced tool call comes without any).
 */
export function jsonToolToContentReply(reply: Reply, name: string): Reply {
  const answer = reply.blocks.find((block) => block.type === 'tool-call' && block.name === name);
  if (answer?.type !== 'tool-call') return reply;
  const others = reply.blocks.filter((block) => block.type === 'tool-call' && block !== answer);
  const reasoning = reply.blocks.filter((block) => block.type === 'reasoning' || block.type === 'redacted-reasoning');
  const blocks: ReplyBlock[] = [...reasoning, { type: 'text', text: answer.arguments }, ...others];
  const finishReason = reply.finishReason === 'tool-calls' && others.length === 0 ? 'stop' : reply.finishReason;
  return { ...reply, blocks, finishReason };
}
