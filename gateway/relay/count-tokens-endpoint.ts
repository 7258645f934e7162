/**
 * @module gateway/relay/count-tokens-endpoint
 * `POST /v1/messages/count_tokens` as relay data (see endpoints.ts): the Messages endpoint's key
 * header, error shape, model resolution and channel kinds, and its own answer for each route. An
 * Anthropic channel receives the request upstream and its count goes back as sent; another channel
 * gets the gateway's tokenizer count (estimate-usage.ts, bounded), marked by `x-gateway-token-count:
 * estimate`. Counting generates nothing and is not billed: no usage event, no TPM or quota hold, but
 * the key checks and RPM apply, and the call is recorded as a `request.completed` of its own endpoint
 * (so refusals, failures and who counts how often stay visible in the usage log).
 */
import { countTokensEnvelopeSchema } from '../../contracts/anthropic/count-tokens-request.ts';
import { buildAnthropicCountTokensRequest } from '../providers/anthropic/count-tokens.ts';
import { type EndpointSpec, messagesEndpoint } from './endpoints.ts';
import { estimatePromptTokens } from './estimate-usage.ts';
import { queryOf } from './relay-handler.ts';
import { answerEstimate, answerUpstreamCount } from './token-count-answers.ts';

export const countTokensEndpoint: EndpointSpec = {
  ...messagesEndpoint,
  name: 'messages.count_tokens',
  schema: countTokensEnvelopeSchema,
  certainlyValid: () => false,
  unbilled: true,
  relayOnce(call, resolved, route, attempt) {
    call.record.noteRoute(route);
    if (route.channel.type !== 'anthropic') {
      answerEstimate(call, route, attempt, () => ({ input_tokens: estimatePromptTokens(resolved.body) }));
      return Promise.resolve();
    }
    const upstream = buildAnthropicCountTokensRequest({
      route,
      body: resolved.body,
      stream: false,
      clientHeaders: call.request.headers,
      clientQuery: queryOf(call.request.url),
    });
    return answerUpstreamCount(call, route, attempt, upstream, 'input_tokens');
  },
};
