/**
 * @module gateway/providers/bedrock/write-converse-request
 * The `bedrock` kind's request writer: a neutral request as a Converse body. The model travels in the
 * URL, not the body. Turns of one role are merged (Converse wants user and assistant to alternate, and
 * a tool loop's results all in one user message). Reasoning becomes Anthropic's `thinking` in
 * `additionalModelRequestFields`, with the same budget rules as the anthropic kind (thinking.ts) and
 * the same things Claude refuses beside it left out; a tool loop whose assistant turn carries no
 * thinking cannot turn thinking on (pitfall 12), and is sent without it.
 */

import { DEFAULT_MAX_TOKENS } from '../../../contracts/anthropic/messages-request.ts';
import type {
  ConverseMessage,
  ConverseRequest,
  ConverseTool,
  ConverseToolChoice,
} from '../../../contracts/bedrock/converse.ts';
import type { NeutralRequest, NeutralTurn } from '../../../contracts/neutral/request.ts';
import { jsonResponseTool } from '../conversion/json-response-tool.ts';
import { effortThinkingPlan, type ThinkingPlan } from '../conversion/thinking.ts';
import type { WrittenRequest } from '../kinds.ts';
import { contentBlocks } from './write-content.ts';

const emptyObjectSchema = { type: 'object', properties: {} };

function messages(turns: readonly NeutralTurn[], warnings: string[]): ConverseMessage[] {
  const written: ConverseMessage[] = [];
  let partIndex = 0;
  for (const turn of turns) {
    // This kind takes no system turns: they were moved to the system prompt (converted-request.ts).
    if (turn.role === 'system') continue;
    const content = turn.parts.flatMap((part) => contentBlocks(part, partIndex++, warnings));
    if (content.length === 0) continue;
    const last = written.at(-1);
    if (last && last.role === turn.role) last.content.push(...content);
    else written.push({ role: turn.role, content });
  }
  return written;
}

function usesTools(turns: readonly NeutralTurn[]): boolean {
  return turns.some((turn) => turn.parts.some((part) => part.type === 'tool-call' || part.type === 'tool-result'));
}

function toolChoice(request: NeutralRequest, warnings: string[]): ConverseToolChoice | undefined {
  const choice = request.toolChoice;
  if (choice === undefined || choice === 'auto') return undefined;
  if (choice === 'required') return { any: {} };
  if (choice === 'none') {
    warnings.push('tool_choice none sent as auto: Bedrock cannot forbid tool calls while tools are listed');
    return undefined;
  }
  return { tool: { name: choice.name } };
}

function toolConfig(request: NeutralRequest, warnings: string[]): ConverseRequest['toolConfig'] {
  if (request.tools.length === 0) return undefined;
  // With tool_choice none and no tool blocks to explain, leaving the tools out is what forbids a call.
  if (request.toolChoice === 'none' && !usesTools(request.turns)) return undefined;
  const choice = toolChoice(request, warnings);
  return {
    tools: request.tools.flatMap((tool): ConverseTool[] => {
      const spec: ConverseTool = {
        toolSpec: {
          name: tool.name,
          ...(tool.description && { description: tool.description }),
          inputSchema: { json: tool.parameters ?? emptyObjectSchema },
        },
      };
      return tool.cache ? [spec, { cachePoint: { type: 'default' } }] : [spec];
    }),
    ...(choice && { toolChoice: choice }),
  };
}

/** The last user turn carries tool results, and the assistant turn it answers starts without thinking. */
function toolLoopLacksThinking(turns: readonly NeutralTurn[]): boolean {
  const last = turns.at(-1);
  if (last?.role !== 'user' || !last.parts.some((part) => part.type === 'tool-result')) return false;
  const first = turns.findLast((turn) => turn.role === 'assistant')?.parts[0]?.type;
  return first !== 'thinking' && first !== 'redacted-thinking';
}

/** The client's exact budget when it gave one (Anthropic's `budget_tokens`), else the effort's. */
function thinkingPlan(request: NeutralRequest): ThinkingPlan | null {
  const { effort, budgetTokens } = request.reasoning ?? {};
  const maxTokens = request.sampling.maxOutputTokens;
  if (budgetTokens !== undefined) {
    // Claude needs room to answer after thinking: the budget stays below max tokens.
    return { budgetTokens, maxTokens: Math.max(maxTokens ?? DEFAULT_MAX_TOKENS + budgetTokens, budgetTokens + 1) };
  }
  return effort ? effortThinkingPlan(effort === 'minimal' ? 'low' : effort, maxTokens) : null;
}

function withThinking(request: NeutralRequest, body: ConverseRequest, warnings: string[]): void {
  const plan = thinkingPlan(request);
  if (!plan) return;
  if (toolLoopLacksThinking(request.turns)) {
    warnings.push('thinking not enabled for this turn: the tool-use turn it continues carries no thinking block');
    return;
  }
  const inference = { ...body.inferenceConfig, maxTokens: plan.maxTokens };
  if (inference.temperature !== undefined && inference.temperature !== 1) {
    delete inference.temperature;
    warnings.push('temperature dropped: extended thinking requires the default temperature');
  }
  if (inference.topP !== undefined && inference.topP < 0.95) {
    delete inference.topP;
    warnings.push('top_p dropped: extended thinking allows only 0.95 to 1');
  }
  body.inferenceConfig = inference;
  if (body.toolConfig?.toolChoice && !('auto' in body.toolConfig.toolChoice)) {
    delete body.toolConfig.toolChoice;
    warnings.push('tool_choice relaxed to auto: extended thinking cannot force a tool');
  }
  body.additionalModelRequestFields = { thinking: { type: 'enabled', budget_tokens: plan.budgetTokens } };
}

/**
 * A JSON response format becomes a tool the model is made to call, as for the anthropic kind
 * (json-response-tool.ts): Converse has no structured output setting of its own for every model.
 */
function withAnswerTool(request: NeutralRequest, body: ConverseRequest): string | null {
  const answer = jsonResponseTool(request);
  if (!answer) return null;
  const { name, description, input_schema: schema } = answer.tool;
  body.toolConfig = {
    tools: [...(body.toolConfig?.tools ?? []), { toolSpec: { name, description, inputSchema: { json: schema } } }],
    toolChoice: { tool: { name: answer.name } },
  };
  return answer.name;
}

export function writeConverseRequest(request: NeutralRequest): WrittenRequest {
  const warnings: string[] = [];
  const body: ConverseRequest = { messages: messages(request.turns, warnings) };
  const system: NonNullable<ConverseRequest['system']> = request.system
    .filter((text) => text.trim() !== '')
    .map((text) => ({ text }));
  if (system.length > 0 && request.systemCache) system.push({ cachePoint: { type: 'default' } });
  if (system.length > 0) body.system = system;
  const { maxOutputTokens, temperature, topP, stop, topK } = request.sampling;
  if (topK !== undefined) warnings.push('top_k dropped: Converse has no such setting for every model');
  const inference = {
    ...(maxOutputTokens !== undefined && { maxTokens: maxOutputTokens }),
    ...(temperature !== undefined && { temperature }),
    ...(topP !== undefined && { topP }),
    ...(stop?.length && { stopSequences: stop }),
  };
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;
  const tools = toolConfig(request, warnings);
  if (tools) body.toolConfig = tools;
  if (request.parallelToolCalls === false) warnings.push('parallel_tool_calls dropped: Bedrock has no such setting');
  const answerTool = withAnswerTool(request, body);
  withThinking(request, body, warnings);
  return { body: body as Record<string, unknown>, warnings, answerTool };
}
