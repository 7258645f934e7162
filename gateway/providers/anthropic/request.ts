/**
 * @module gateway/providers/anthropic/request
 * The upstream request for an Anthropic channel. `base_url` is taken as Anthropic's SDK takes it
 * (`https://api.anthropic.com`). The client's `anthropic-version` and `anthropic-beta` are passed
 * through as sent (unknown versions too: the upstream is the judge), as is the query string
 * (`?beta=true`), and `max_tokens`, which
 * Anthropic requires, gets the documented default when absent.
 */
import { DEFAULT_MAX_TOKENS } from '../../../contracts/anthropic/messages-request.ts';
import { withMembers } from '../json-members.ts';
import { type BuiltRequest, clientTextOf, type RelayInput } from '../provider.ts';

export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

export function buildAnthropicRequest(input: RelayInput): BuiltRequest {
  const { route, body, stream, clientHeaders, clientQuery } = input;
  const clientText = clientTextOf(input);
  // What differs from the client's body: the channel's model name, and a max_tokens where none was sent.
  const changed: Record<string, unknown> = {};
  if (body['model'] !== route.upstreamModel) changed['model'] = route.upstreamModel;
  if (body['max_tokens'] === undefined) changed['max_tokens'] = DEFAULT_MAX_TOKENS;
  const headers: Record<string, string> = {
    'x-api-key': route.channel.apiKey,
    'anthropic-version': header(clientHeaders['anthropic-version']) ?? DEFAULT_ANTHROPIC_VERSION,
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
  };
  const beta = header(clientHeaders['anthropic-beta']);
  if (beta) headers['anthropic-beta'] = beta;
  return {
    upstream: {
      url: `${route.channel.baseUrl}/v1/messages${clientQuery ?? ''}`,
      headers,
      body: clientText === undefined ? JSON.stringify({ ...body, ...changed }) : withMembers(clientText, changed),
    },
    hideUsageChunk: false,
  };
}
