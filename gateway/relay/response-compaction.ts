/**
 * @module gateway/relay/response-compaction
 * Before a Responses-family request is routed: the gateway's own compaction items it carries, in its
 * `input` or in the stored turns it continues, are opened with the account's key, and the sealer of
 * that account is attached to the body (providers/responses/compaction.ts), so that every attempt
 * restores the summaries and a compaction it answers is sealed for the account that asked. A
 * gateway item that does not open (altered, another account's, or sealed under another
 * GATEWAY_SECRET) is a 400: relaying without it would silently drop the history it stands for.
 */
import { attachCompaction, compactionTokens } from '../providers/responses/compaction.ts';
import { isGatewaySeal, openSummary, sealSummary } from '../security/compaction-seal.ts';
import { GatewayError } from './errors.ts';

export function openCompactions(
  body: Record<string, unknown>,
  earlierItems: readonly (readonly unknown[])[],
  userId: string,
  key: Buffer | undefined,
): void {
  if (!key) return;
  const summaries = new Map<string, string>();
  const input = Array.isArray(body['input']) ? (body['input'] as unknown[]) : [];
  for (const [at, items] of [input, ...earlierItems].entries()) {
    for (const token of compactionTokens(items)) {
      if (!isGatewaySeal(token) || summaries.has(token)) continue;
      const summary = openSummary(token, key, userId);
      if (summary === null) {
        throw new GatewayError(
          'invalid_request',
          `A compaction item ${at === 0 ? 'in input' : 'of the conversation previous_response_id continues'} cannot be opened: it was altered, made for another account, or made under another gateway secret. Send the conversation without it.`,
          { param: at === 0 ? 'input' : 'previous_response_id', code: 'invalid_compaction' },
        );
      }
      summaries.set(token, summary);
    }
  }
  attachCompaction(body, { seal: (summary) => sealSummary(summary, key, userId), summaries });
}
