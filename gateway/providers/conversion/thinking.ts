/**
 * @module gateway/providers/conversion/thinking
 * Extended thinking rules shared by both directions: the budget rules (documented in
 * docs/conversion.md), the `-thinking` model suffix of `/v1/messages`, and the request fields Anthropic
 * refuses while thinking is on.
 *
 * Budget rules, all keeping Anthropic's constraints 1024 ≤ budget_tokens < max_tokens (pitfall 14):
 * - `-thinking` suffix (new-api's rule): max_tokens = the client's or 4096, raised to at least 1280;
 *   budget = 80 % of max_tokens.
 * - `reasoning_effort` low/medium/high → 1024/2048/4096 (LiteLLM's buckets). Without a client max the
 *   budget is added on top of the 4096 default, as OpenAI's max counts reasoning tokens too; with one,
 *   the budget is capped at 80 % of it (max raised to 1280 when lower).
 */
import { DEFAULT_MAX_TOKENS } from '../../../contracts/anthropic/messages-request.ts';

export const THINKING_SUFFIX = '-thinking';
export const MIN_THINKING_BUDGET = 1024;
export const MIN_MAX_TOKENS_WITH_THINKING = 1280;
export const BUDGET_SHARE_OF_MAX_TOKENS = 0.8;
export const EFFORT_BUDGETS = { low: 1024, medium: 2048, high: 4096 } as const;
export type ReasoningEffort = keyof typeof EFFORT_BUDGETS;

export interface ThinkingPlan {
  maxTokens: number;
  budgetTokens: number;
}

function cappedPlan(maxTokens: number, wanted: number): ThinkingPlan {
  const max = Math.max(maxTokens, MIN_MAX_TOKENS_WITH_THINKING);
  const cap = Math.floor(max * BUDGET_SHARE_OF_MAX_TOKENS);
  return { maxTokens: max, budgetTokens: Math.max(MIN_THINKING_BUDGET, Math.min(wanted, cap)) };
}

export function suffixThinkingPlan(maxTokens: number | undefined): ThinkingPlan {
  return cappedPlan(maxTokens ?? DEFAULT_MAX_TOKENS, Number.POSITIVE_INFINITY);
}

export function effortThinkingPlan(effort: ReasoningEffort, maxTokens: number | undefined): ThinkingPlan {
  const wanted = EFFORT_BUDGETS[effort];
  if (maxTokens === undefined) return { maxTokens: DEFAULT_MAX_TOKENS + wanted, budgetTokens: wanted };
  return cappedPlan(maxTokens, wanted);
}

/** Anthropic budget → OpenAI effort, LiteLLM's buckets. */
export function effortForBudget(budgetTokens: number): ReasoningEffort {
  if (budgetTokens >= EFFORT_BUDGETS.high) return 'high';
  if (budgetTokens >= EFFORT_BUDGETS.medium) return 'medium';
  return 'low';
}

/**
 * Removes what Anthropic refuses alongside thinking: a non-default temperature, top_k, top_p below
 * 0.95, and a forced tool choice (pitfall 13), which becomes `auto`.
 */
export function withoutThinkingConflicts(body: Record<string, unknown>, warnings: string[]): Record<string, unknown> {
  const result = { ...body };
  if (result['temperature'] !== undefined && result['temperature'] !== 1) {
    delete result['temperature'];
    warnings.push('temperature dropped: extended thinking requires the default temperature');
  }
  if (result['top_k'] !== undefined) {
    delete result['top_k'];
    warnings.push('top_k dropped: not allowed with extended thinking');
  }
  if (typeof result['top_p'] === 'number' && result['top_p'] < 0.95) {
    delete result['top_p'];
    warnings.push('top_p dropped: extended thinking allows only 0.95 to 1');
  }
  const choice = result['tool_choice'] as { type?: string; disable_parallel_tool_use?: boolean } | undefined;
  if (choice?.type === 'any' || choice?.type === 'tool') {
    result['tool_choice'] = {
      type: 'auto',
      ...(choice.disable_parallel_tool_use !== undefined && {
        disable_parallel_tool_use: choice.disable_parallel_tool_use,
      }),
    };
    warnings.push('tool_choice relaxed to auto: extended thinking cannot force a tool');
  }
  return result;
}

type AnthropicBlock = { type?: string };
type AnthropicTurn = { role?: string; content?: unknown };

/**
 * True when thinking cannot be turned on for this request: the conversation continues a tool loop
 * (the last turn carries tool results) whose assistant turn has no thinking block to start it, which
 * Anthropic refuses with "a final assistant message must start with a thinking block" (pitfall 12).
 * This happens when the client never saw the thinking (an OpenAI client, or thinking_to_content).
 */
export function toolLoopLacksThinking(messages: readonly AnthropicTurn[]): boolean {
  const last = messages.at(-1);
  const blocks = (turn: AnthropicTurn | undefined): AnthropicBlock[] =>
    Array.isArray(turn?.content) ? (turn.content as AnthropicBlock[]) : [];
  if (last?.role !== 'user' || !blocks(last).some((block) => block.type === 'tool_result')) return false;
  const assistant = messages.findLast((turn) => turn.role === 'assistant');
  const first = blocks(assistant)[0]?.type;
  return first !== 'thinking' && first !== 'redacted_thinking';
}

export interface ResolvedModel {
  /** the model id to route by */
  model: string;
  body: Record<string, unknown>;
  warnings: string[];
}

/**
 * `/v1/messages` with a model id ending in `-thinking` is routed by the id without the suffix and asks
 * the upstream for extended thinking, unless a channel serves the suffixed id itself (some models are
 * named that way). A `thinking` field the client set wins over the suffix.
 */
export function resolveThinkingSuffix(
  body: Record<string, unknown>,
  serves: (model: string) => boolean,
): ResolvedModel {
  const model = String(body['model']);
  const base = model.slice(0, -THINKING_SUFFIX.length);
  if (!model.endsWith(THINKING_SUFFIX) || !base || serves(model)) return { model, body, warnings: [] };
  if (body['thinking'] !== undefined) return { model: base, body: { ...body, model: base }, warnings: [] };
  const warnings: string[] = [];
  if (toolLoopLacksThinking((body['messages'] as AnthropicTurn[]) ?? [])) {
    warnings.push('thinking not enabled for this turn: the tool-use turn it continues carries no thinking block');
    return { model: base, body: { ...body, model: base }, warnings };
  }
  const plan = suffixThinkingPlan(body['max_tokens'] as number | undefined);
  return {
    model: base,
    body: {
      ...withoutThinkingConflicts(body, warnings),
      model: base,
      max_tokens: plan.maxTokens,
      thinking: { type: 'enabled', budget_tokens: plan.budgetTokens },
    },
    warnings,
  };
}
