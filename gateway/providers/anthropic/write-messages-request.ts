/**
 * @module gateway/providers/anthropic/write-messages-request
 * The `anthropic` kind's request writer: a neutral request as a Messages body (docs/wire-formats.md
 * §3.1). Every Anthropic rule is written here once, whichever format the client spoke: the thinking
 * budget and what thinking forbids (conversion/thinking.ts), the JSON answer tool for a response
 * format, the tool choice with `disable_parallel_tool_use`, temperature clamped to 1 and not sent with
 * top_p, blank stop sequences and e-mail user ids left out. What is dropped or changed is named in
 * the warnings.
 */
import { DEFAULT_MAX_TOKENS } from '../../../contracts/anthropic/messages-request.ts';
import type { NeutralRequest } from '../../../contracts/neutral/request.ts';
import { jsonResponseTool } from '../conversion/json-response-tool.ts';
import { effortThinkingPlan, toolLoopLacksThinking, withoutThinkingConflicts } from '../conversion/thinking.ts';
import type { WrittenRequest } from '../kinds.ts';
import { type AnthropicBlock, cacheControl, writeSystem, writeTurns } from './write-messages-turns.ts';

type Body = Record<string, unknown>;

function inputSchema(parameters: Record<string, unknown> | undefined): Record<string, unknown> {
  // OpenAI lets a function omit its parameters (no arguments); Anthropic needs an object schema.
  return { type: 'object', ...(parameters ?? { properties: {} }) };
}

function toolChoice(request: NeutralRequest): AnthropicBlock | undefined {
  const choice = request.toolChoice;
  let result: AnthropicBlock | undefined;
  if (choice === 'auto') result = { type: 'auto' };
  else if (choice === 'required') result = { type: 'any' };
  else if (choice === 'none') result = { type: 'none' };
  else if (choice) result = { type: 'tool', name: choice.name };
  if (request.parallelToolCalls === false && result?.['type'] !== 'none') {
    result = { ...(result ?? { type: 'auto' }), disable_parallel_tool_use: true };
  }
  return result;
}

function addTools(request: NeutralRequest, body: Body, thinking: boolean, warnings: string[]): string | null {
  const tools: AnthropicBlock[] = request.tools.map((tool) => ({
    name: tool.name,
    ...(tool.description && { description: tool.description }),
    input_schema: inputSchema(tool.parameters),
    ...cacheControl(tool.cache),
  }));
  let choice = tools.length ? toolChoice(request) : undefined;
  const json = jsonResponseTool(request);
  if (json) {
    tools.push(json.tool);
    // Forced only when the client has no tools of its own and thinking does not forbid it (pitfall 13).
    if (request.tools.length === 0 && !thinking) choice = { type: 'tool', name: json.name };
    else if (thinking) warnings.push('response_format not enforced: extended thinking cannot force the answer tool');
  }
  if (tools.length) body['tools'] = tools;
  if (choice) body['tool_choice'] = choice;
  return json?.name ?? null;
}

function stopSequences(stop: string[] | undefined, warnings: string[]): string[] {
  const all = stop ?? [];
  const kept = all.filter((sequence) => sequence.trim() !== '');
  if (kept.length < all.length) warnings.push('whitespace-only stop sequences dropped: Anthropic refuses them');
  return kept;
}

function addSampling(request: NeutralRequest, body: Body, warnings: string[]): void {
  const { temperature, topP, topK } = request.sampling;
  if (temperature !== undefined) {
    // Anthropic's range is 0 to 1; its own OpenAI compatibility layer clamps the same way.
    if (temperature > 1) warnings.push('temperature above 1 clamped to 1: Anthropic accepts 0 to 1');
    body['temperature'] = Math.min(temperature, 1);
  }
  if (topP !== undefined) body['top_p'] = topP;
  if (topK !== undefined) body['top_k'] = topK;
  const stop = stopSequences(request.sampling.stop, warnings);
  if (stop.length) body['stop_sequences'] = stop;
  const user = request.user;
  // Anthropic wants an opaque id here, never personal data such as an e-mail address.
  if (user && !user.includes('@')) body['metadata'] = { user_id: user };
  else if (user) warnings.push('user dropped: it looks like an e-mail address');
}

/** Turns thinking on when the request asks for reasoning; false when it does not or cannot. */
function addThinking(request: NeutralRequest, body: Body, warnings: string[]): boolean {
  const reasoning = request.reasoning;
  if (!reasoning || (reasoning.effort === undefined && reasoning.budgetTokens === undefined)) return false;
  if (toolLoopLacksThinking(body['messages'] as Array<{ role: string; content: unknown }>)) {
    warnings.push('reasoning_effort ignored for this turn: the tool-use turn it continues carries no thinking block');
    return false;
  }
  const clientMax = request.sampling.maxOutputTokens;
  if (reasoning.budgetTokens !== undefined) {
    // An exact budget comes from a client that wrote Anthropic's own thinking settings: kept as sent.
    body['thinking'] = { type: 'enabled', budget_tokens: reasoning.budgetTokens };
    return true;
  }
  // The budget scale starts at low: minimal asks for the least there is.
  const effort = reasoning.effort === 'minimal' || reasoning.effort === undefined ? 'low' : reasoning.effort;
  const plan = effortThinkingPlan(effort, clientMax);
  body['max_tokens'] = plan.maxTokens;
  body['thinking'] = { type: 'enabled', budget_tokens: plan.budgetTokens };
  return true;
}

export function writeMessagesRequest(request: NeutralRequest): WrittenRequest {
  const warnings: string[] = [];
  const messages = writeTurns(request.turns, warnings);
  const system = writeSystem(request);
  let body: Body = { model: request.model, messages };
  if (system.length) body['system'] = system;
  body['max_tokens'] = request.sampling.maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  if (request.stream) body['stream'] = true;
  addSampling(request, body, warnings);
  const thinking = addThinking(request, body, warnings);
  const answerTool = addTools(request, body, thinking, warnings);
  if (thinking) body = withoutThinkingConflicts(body, warnings);
  if (body['temperature'] !== undefined && body['top_p'] !== undefined) {
    // Recent Claude models refuse the two together; Anthropic advises setting one of them.
    delete body['top_p'];
    warnings.push('top_p dropped: Anthropic models refuse temperature and top_p together, temperature kept');
  }
  return { body, warnings, answerTool };
}
