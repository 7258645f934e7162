/**
 * @module gateway/relay/responses-compaction-endpoints
 * `POST /v1/responses/compact` and `POST /v1/responses/input_tokens` as relay data (see endpoints.ts),
 * with the `/v1/responses` key header, error shapes and stored conversations (`previous_response_id`,
 * the gateway's compaction items: response-continuation.ts), each recorded under its own endpoint.
 *
 * - compact: relayed as is to a channel that is OpenAI's own Responses API; on every other channel
 *   the gateway's summarising call answers it (providers/responses/compaction-format.ts). It
 *   generates tokens: its usage is recorded and billed, and the holds apply, as on `/v1/responses`.
 * - input_tokens: counted upstream by OpenAI's own Responses API, else by the gateway's tokenizer
 *   over the conversation the channel would receive, marked `x-gateway-token-count: estimate`.
 *   Counting generates nothing: no usage, no TPM or quota hold, but the key checks and RPM apply, as
 *   on `/v1/messages/count_tokens`.
 */
import {
  responsesCompactEnvelopeSchema,
  responsesInputTokensEnvelopeSchema,
} from '../../contracts/openai/responses-compaction.ts';
import { providersFor } from '../providers/index.ts';
import { buildResponsesSubRequest } from '../providers/openai/responses-compact-native.ts';
import type { RelayInput } from '../providers/provider.ts';
import { preparedInput } from '../providers/responses/compaction.ts';
import { compactsNatively } from '../providers/responses/responses-providers.ts';
import { type EndpointSpec, responsesEndpoint } from './endpoints.ts';
import { estimatePromptTokens } from './estimate-usage.ts';
import { queryOf } from './relay-handler.ts';
import { continueWholeConversation } from './response-continuation.ts';
import { answerEstimate, answerUpstreamCount } from './token-count-answers.ts';

const { keyOf, keyHint, errorBody, streamErrorFrame } = responsesEndpoint;

export const responsesCompactEndpoint: EndpointSpec = {
  name: 'responses.compact',
  schema: responsesCompactEnvelopeSchema,
  certainlyValid: () => false,
  keyOf,
  keyHint,
  providers: providersFor('responses.compact'),
  prepare: continueWholeConversation,
  errorBody,
  streamErrorFrame,
};

export const responsesInputTokensEndpoint: EndpointSpec = {
  name: 'responses.input_tokens',
  schema: responsesInputTokensEnvelopeSchema,
  certainlyValid: () => false,
  keyOf,
  keyHint,
  providers: providersFor('responses'),
  prepare: continueWholeConversation,
  unbilled: true,
  errorBody,
  streamErrorFrame,
  relayOnce(call, resolved, route, attempt) {
    const { request } = call;
    call.record.noteRoute(route);
    const client: RelayInput = {
      route,
      body: resolved.body,
      stream: false,
      clientHeaders: request.headers,
      clientQuery: queryOf(request.url),
    };
    if (!compactsNatively(route.channel.type, client)) {
      answerEstimate(call, route, attempt, () => ({
        object: 'response.input_tokens',
        input_tokens: estimatePromptTokens(preparedInput(client, false).body),
      }));
      return Promise.resolve();
    }
    const upstream = buildResponsesSubRequest(preparedInput(client, true), 'input_tokens').upstream;
    return answerUpstreamCount(call, route, attempt, upstream, 'input_tokens');
  },
};
