/**
 * @module gateway/providers/anthropic/count-tokens
 * The upstream request for `POST /v1/messages/count_tokens` on an Anthropic channel: the Messages
 * request's own headers (the channel's key, the client's `anthropic-version` and `anthropic-beta`),
 * at Anthropic's counting path, with the channel's model name. `max_tokens` is left out: the counting
 * API has no such field, and the `-thinking` suffix adds one for Messages.
 */

import type { RelayInput } from '../provider.ts';
import type { UpstreamRequest } from '../upstream-route.ts';
import { buildAnthropicRequest } from './request.ts';

export function buildAnthropicCountTokensRequest(input: RelayInput): UpstreamRequest {
  const { upstream } = buildAnthropicRequest({ ...input, stream: false });
  const { max_tokens: _generated, ...body } = input.body;
  return {
    ...upstream,
    url: `${input.route.channel.baseUrl}/v1/messages/count_tokens${input.clientQuery ?? ''}`,
    body: JSON.stringify({ ...body, model: input.route.upstreamModel }),
  };
}
