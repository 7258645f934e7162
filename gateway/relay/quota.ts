/**
 * @module gateway/relay/quota
 * A key's token quota on the hot path: before the request is relayed it holds an estimate of its
 * tokens in the shared quota ledger (refused once the used and held tokens reach the quota), and when
 * it ends the hold is settled to the tokens really used. The estimate is the prompt (4 bytes a token,
 * as the TPM limit counts it) plus the completion the request allows (`max_tokens`,
 * `max_completion_tokens`, else `DEFAULT_COMPLETION_ALLOWANCE`), so that a request rarely uses more
 * than it held: that is what bounds the overshoot to the one request that crossed the quota.
 */
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import type { LookupReadModel, QuotaLedger } from '../../stores/ports.ts';
import { GatewayError } from './errors.ts';

export const DEFAULT_COMPLETION_ALLOWANCE = 1_024;

/** The completion tokens the request allows (what its quota hold and budget hold count). */
export function completionAllowance(body: Record<string, unknown>): number {
  // max_output_tokens: the Responses API's name for it.
  for (const field of ['max_completion_tokens', 'max_tokens', 'max_output_tokens']) {
    const value = body[field];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return Math.ceil(value);
  }
  return DEFAULT_COMPLETION_ALLOWANCE;
}

/**
 * Holds the request's estimated tokens of the key's quota and answers the key to settle it under, or
 * throws the refusal. A key without a quota holds nothing.
 */
export async function reserveQuota(
  quotas: QuotaLedger,
  lookups: LookupReadModel,
  token: TokenDocument,
  body: Record<string, unknown>,
  bodyBytes: number,
  holdId: string,
): Promise<string | null> {
  if (token.quota === null) return null;
  const decision = await quotas.reserve(
    token.tokenId,
    {
      quota: token.quota,
      amount: Math.ceil(bodyBytes / 4) + completionAllowance(body),
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
