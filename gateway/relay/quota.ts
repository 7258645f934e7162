/**
 * @module gateway/relay/quota
 * A key's token quota on the hot path: before the request is relayed it holds an estimate of its
 * tokens in the shared quota ledger (refused once the used and held tokens reach the quota), and when
 * it ends the hold is settled to the tokens really used. The estimate is the prompt as the upstream
 * receives it (4 bytes a token, as the TPM limit counts it: the client's body and the earlier turns
 * the gateway adds to a continued conversation) plus the completion the request allows (`max_tokens`,
 * `max_completion_tokens`, else `DEFAULT_COMPLETION_ALLOWANCE`, for each of the `n` choices it asks
 * for), so that a request rarely uses more than it held: that is what bounds the overshoot to the one
 * request that crossed the quota.
 */
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import type { LookupReadModel, QuotaLedger } from '../../stores/ports.ts';
import { GatewayError } from './errors.ts';

export const DEFAULT_COMPLETION_ALLOWANCE = 1_024;

/** The tokens a request may use, as its holds count them (token quota, money budgets, TPM). */
export interface TokenEstimate {
  promptTokens: number;
  completionTokens: number;
}

/**
 * The request's estimate: `bodyBytes` of the client's body and `addedPromptTokens` the gateway adds to
 * it (the earlier turns of a continued conversation) as the prompt, and the completion it allows.
 */
export function tokenEstimate(
  body: Record<string, unknown>,
  bodyBytes: number,
  addedPromptTokens = 0,
  allowance: (body: Record<string, unknown>) => number = completionAllowance,
): TokenEstimate {
  return { promptTokens: Math.ceil(bodyBytes / 4) + addedPromptTokens, completionTokens: allowance(body) };
}

/**
 * How many replies the request asks for, each up to the completion limit: chat's `n` (1 to 128, as
 * the contract bounds it). Only chat completions relay it: the converted paths refuse `n` over 1.
 * Gemini's `candidateCount` is counted by its endpoint's own allowance (gemini-endpoints.ts).
 */
function choices(body: Record<string, unknown>): number {
  const n = body['n'];
  return typeof n === 'number' && Number.isInteger(n) && n > 1 ? n : 1;
}

/** The completion tokens the request allows over all its choices (what its quota hold and budget hold count). */
export function completionAllowance(body: Record<string, unknown>): number {
  // max_output_tokens: the Responses API's name for it.
  for (const field of ['max_completion_tokens', 'max_tokens', 'max_output_tokens']) {
    const value = body[field];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return Math.ceil(value) * choices(body);
  }
  return DEFAULT_COMPLETION_ALLOWANCE * choices(body);
}

/**
 * Holds the request's estimated tokens of the key's quota and answers the key to settle it under, or
 * throws the refusal. A key without a quota holds nothing.
 */
export async function reserveQuota(
  quotas: QuotaLedger,
  lookups: LookupReadModel,
  token: TokenDocument,
  estimate: TokenEstimate,
  holdId: string,
): Promise<string | null> {
  if (token.quota === null) return null;
  const decision = await quotas.reserve(
    token.tokenId,
    {
      quota: token.quota,
      amount: estimate.promptTokens + estimate.completionTokens,
      projectedUsed: lookups.tokenUsage(token.tokenId).usedTokens,
      holdId,
    },
    Date.now(),
  );
  if (decision.allowed) return token.tokenId;
  if (decision.used >= token.quota) {
    throw new GatewayError(
      'insufficient_quota',
      `This API key has used its quota (${decision.used} of ${token.quota} tokens). Raise the quota in the console.`,
    );
  }
  throw new GatewayError(
    'rate_limit',
    `This API key's requests in flight hold the rest of its quota (${decision.used} used and ${decision.held} held of ${token.quota} tokens). Retry when they finish, or raise the quota in the console.`,
    { code: 'quota_held_by_requests_in_flight', headers: { 'retry-after': '1' } },
  );
}
