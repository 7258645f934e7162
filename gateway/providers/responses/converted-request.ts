/**
 * @module gateway/providers/responses/converted-request
 * A Responses request read once into the neutral request and written by one channel kind's request
 * writer. The relay asks a provider for the upstream request, then for the reply's reader, with the
 * same client body: the conversion is kept per body (weakly, it goes with the request) rather than
 * redone.
 */
import type { ChannelType } from '../../../contracts/channel-type.ts';
import type { NeutralRequest } from '../../../contracts/neutral/request.ts';
import type { ResponsesRequest } from '../../../contracts/openai/responses-request.ts';
import { upstreamKinds, type WrittenRequest } from '../kinds.ts';
import { readResponsesRequest } from './read-responses-request.ts';

export interface ConvertedResponsesRequest extends WrittenRequest {
  neutral: NeutralRequest;
}

const converted = new Map<ChannelType, WeakMap<object, ConvertedResponsesRequest>>();

function convert(kind: ChannelType, body: ResponsesRequest): ConvertedResponsesRequest {
  const { request: neutral, warnings } = readResponsesRequest(body);
  const written = upstreamKinds[kind].writeRequest(neutral);
  return { ...written, neutral, warnings: [...warnings, ...written.warnings] };
}

/** The client's body (validated by the Responses contract) converted for `kind`, once per body. */
export function convertedFor(kind: ChannelType, clientBody: Record<string, unknown>): ConvertedResponsesRequest {
  let cache = converted.get(kind);
  if (!cache) {
    cache = new WeakMap();
    converted.set(kind, cache);
  }
  let result = cache.get(clientBody);
  if (!result) {
    result = convert(kind, clientBody as ResponsesRequest);
    cache.set(clientBody, result);
  }
  return result;
}
