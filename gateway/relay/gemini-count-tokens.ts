/**
 * @module gateway/relay/gemini-count-tokens
 * Gemini's `:countTokens` as a relay endpoint, like `/v1/messages/count_tokens` (count-tokens-endpoint.ts):
 * a gemini channel counts upstream and its answer goes back as sent; any other channel gets the
 * gateway's tokenizer count as `{"totalTokens": n}`, marked `x-gateway-token-count: estimate`.
 * Unbilled: the key checks and RPM apply, no quota, TPM or usage; recorded as `gemini.countTokens`.
 */
import { countTokensRequestSchema } from '../../contracts/gemini/client-request.ts';
import { buildGeminiMethodRequest } from '../providers/gemini/methods.ts';
import type { EndpointSpec } from './endpoints.ts';
import { estimatePromptTokens } from './estimate-usage.ts';
import { geminiShared, generateContentEndpoint } from './gemini-endpoints.ts';
import { answerEstimate, answerUpstreamCount } from './token-count-answers.ts';

/** The conversation a count is of: the whole request when one is given (system prompt and tools too). */
function countedBody(body: Record<string, unknown>): Record<string, unknown> {
  const whole = body['generateContentRequest'];
  return typeof whole === 'object' && whole !== null ? (whole as Record<string, unknown>) : body;
}

export const geminiCountTokensEndpoint: EndpointSpec = {
  ...geminiShared,
  name: 'gemini.countTokens',
  schema: countTokensRequestSchema,
  certainlyValid: () => false,
  // The kinds that serve generateContent are the ones a count routes to (relayOnce counts itself).
  providers: generateContentEndpoint.providers,
  unbilled: true,
  relayOnce(call, resolved, route, attempt) {
    call.record.noteRoute(route);
    if (route.channel.type !== 'gemini') {
      answerEstimate(call, route, attempt, () => ({ totalTokens: estimatePromptTokens(countedBody(resolved.body)) }));
      return Promise.resolve();
    }
    const built = buildGeminiMethodRequest('countTokens', {
      route,
      body: resolved.body,
      stream: false,
      clientHeaders: call.request.headers,
    });
    // Google leaves out a zero count: an empty conversation's answer is `{}`.
    return answerUpstreamCount(call, route, attempt, built.upstream, 'totalTokens', true);
  },
};
