/**
 * @module gateway/providers/conversion/openai-request-to-anthropic
 * A Chat Completions request as an Anthropic Messages request (docs/wire-formats.md §3.1). What has no
 * Anthropic equivalent is dropped and named in the returned warnings (sent back in the
 * `x-gateway-warnings` header, listed in docs/conversion.md); only `n > 1`, which would silently
 * return fewer choices than asked, is refused.
 */
import { DEFAULT_MAX_TOKENS } from '../../../contracts/anthropic/messages-request.ts';
import type { ChatMessage } from '../../../contracts/openai/chat-message.ts';
import { GatewayError } from '../../relay/errors.ts';
import { jsonResponseTool } from './json-response-tool.ts';
import { openAIMessagesToAnthropic } from './openai-messages-to-anthropic.ts';
import {
  effortThinkingPlan,
  type ReasoningEffort,
  toolLoopLacksThinking,
  withoutThinkingConflicts,
} from './thinking.ts';

export interface ConvertedRequest {
  body: Record<string, unknown>;
  warnings: string[];
}

/** Fields with no Anthropic counterpart; dropped with a warning when the client set them. */
const DROPPED_FIELDS = [
  'frequency_penalty',
  'presence_penalty',
  'logprobs',
  'top_logprobs',
  'logit_bias',
  'seed',
  'modalities',
  'audio',
  'prediction',
  'store',
  'service_tier',
  'web_search_options',
  'verbosity',
  'metadata',
  'functions',
  'function_call',
  'prompt_cache_key',
  'safety_identifier',
];

type Tool = { function: { name: string; description?: string; parameters?: Record<string, unknown> } };
type ToolChoice = 'none' | 'auto' | 'required' | { function: { name: string } };

function inputSchema(parameters: Record<string, unknown> | undefined): Record<string, unknown> {
  // OpenAI lets a function omit its parameters (no arguments); Anthropic needs an object schema.
  return { type: 'object', ...(parameters ?? { properties: {} }) };
}

function toolChoice(choice: ToolChoice | undefined, parallel: boolean | null | undefined) {
  let result: Record<string, unknown> | undefined;
  if (choice === 'auto') result = { type: 'auto' };
  else if (choice === 'required') result = { type: 'any' };
  else if (choice === 'none') result = { type: 'none' };
  else if (choice) result = { type: 'tool', name: choice.function.name };
  if (parallel === false && result?.['type'] !== 'none') {
    result = { ...(result ?? { type: 'auto' }), disable_parallel_tool_use: true };
  }
  return result;
}

function addTools(
  request: Record<string, unknown>,
  body: Record<string, unknown>,
  thinking: boolean,
  warnings: string[],
) {
  const clientTools = (request['tools'] as Tool[] | undefined) ?? [];
  const tools = clientTools.map(({ function: definition }) => ({
    name: definition.name,
    ...(definition.description && { description: definition.description }),
    input_schema: inputSchema(definition.parameters),
  }));
  let choice = tools.length
    ? toolChoice(request['tool_choice'] as ToolChoice | undefined, request['parallel_tool_calls'] as boolean | null)
    : undefined;
  const json = jsonResponseTool(request);
  if (json) {
    tools.push(json.tool as (typeof tools)[number]);
    // Forced only when the client has no tools of its own and thinking does not forbid it (pitfall 13).
    if (clientTools.length === 0 && !thinking) choice = { type: 'tool', name: json.name };
    else if (thinking) warnings.push('response_format not enforced: extended thinking cannot force the answer tool');
  }
  if (tools.length) body['tools'] = tools;
  if (choice) body['tool_choice'] = choice;
}

function stopSequences(stop: unknown, warnings: string[]): string[] {
  const all = typeof stop === 'string' ? [stop] : Array.isArray(stop) ? (stop as string[]) : [];
  const kept = all.filter((sequence) => sequence.trim() !== '');
  if (kept.length < all.length) warnings.push('whitespace-only stop sequences dropped: Anthropic refuses them');
  return kept;
}

export function openAIRequestToAnthropic(request: Record<string, unknown>): ConvertedRequest {
  if (typeof request['n'] === 'number' && request['n'] > 1) {
    throw new GatewayError(
      'invalid_request',
      'n greater than 1 is not available for this model: its provider returns one choice per request. Leave n out (or send 1) and repeat the request for more choices.',
      { param: 'n' },
    );
  }
  const warnings: string[] = [];
  const converted = openAIMessagesToAnthropic(request['messages'] as ChatMessage[], warnings);
  const clientMax = (request['max_completion_tokens'] ?? request['max_tokens'] ?? undefined) as number | undefined;
  let body: Record<string, unknown> = { model: request['model'], messages: converted.messages };
  if (converted.system.length) body['system'] = converted.system;
  body['max_tokens'] = clientMax ?? DEFAULT_MAX_TOKENS;
  if (request['stream'] === true) body['stream'] = true;
  const temperature = request['temperature'] as number | null | undefined;
  if (typeof temperature === 'number') {
    // Anthropic's range is 0 to 1; its own OpenAI compatibility layer clamps the same way.
    if (temperature > 1) warnings.push('temperature above 1 clamped to 1: Anthropic accepts 0 to 1');
    body['temperature'] = Math.min(temperature, 1);
  }
  if (typeof request['top_p'] === 'number') body['top_p'] = request['top_p'];
  const stop = stopSequences(request['stop'], warnings);
  if (stop.length) body['stop_sequences'] = stop;
  const user = request['user'];
  // Anthropic wants an opaque id here, never personal data such as an e-mail address.
  if (typeof user === 'string' && user && !user.includes('@')) body['metadata'] = { user_id: user };
  else if (typeof user === 'string' && user) warnings.push('user dropped: it looks like an e-mail address');
  const effort = request['reasoning_effort'] as ReasoningEffort | null | undefined;
  let thinking = false;
  if (effort && toolLoopLacksThinking(converted.messages)) {
    warnings.push('reasoning_effort ignored for this turn: the tool-use turn it continues carries no thinking block');
  } else if (effort) {
    const plan = effortThinkingPlan(effort, clientMax);
    body['max_tokens'] = plan.maxTokens;
    body['thinking'] = { type: 'enabled', budget_tokens: plan.budgetTokens };
    thinking = true;
  }
  addTools(request, body, thinking, warnings);
  if (thinking) body = withoutThinkingConflicts(body, warnings);
  if (body['temperature'] !== undefined && body['top_p'] !== undefined) {
    // Recent Claude models refuse the two together; Anthropic advises setting one of them.
    delete body['top_p'];
    warnings.push('top_p dropped: Anthropic models refuse temperature and top_p together, temperature kept');
  }
  for (const field of DROPPED_FIELDS) {
    if (request[field] !== undefined && request[field] !== null)
      warnings.push(`${field} dropped: no Anthropic equivalent`);
  }
  return { body, warnings };
}
