/**
 * @module gateway/providers/bedrock/request
 * The upstream request of a bedrock channel: `POST {base_url}/model/{modelId}/converse` (or
 * `/converse-stream`), the model id URL-encoded (ids such as `anthropic.claude-3-5-sonnet-20240620-v1:0`
 * and inference profile ARNs hold `:` and `/`). The channel's key slot holds either a Bedrock API key,
 * sent as a bearer token, or an AWS credential, with which the request is signed (SigV4) as it leaves.
 */
import { readBedrockSecret } from '../../../contracts/bedrock/credentials.ts';
import type { BuiltRequest, RelayInput } from '../provider.ts';
import type { RoutableChannel } from '../upstream-route.ts';
import { signedHeaders } from './sign-request.ts';

export const BEDROCK_STREAM_CONTENT_TYPE = 'application/vnd.amazon.eventstream';

/** The channel's region, or the one its regional endpoint names. */
export function regionOf(channel: Pick<RoutableChannel, 'region' | 'baseUrl'>): string {
  if (channel.region) return channel.region;
  const named = /^https?:\/\/bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com/.exec(channel.baseUrl);
  // The config and the console require a region when the base URL does not name one.
  return named?.[1] ?? 'us-east-1';
}

export function buildBedrockRequest({ route, body, stream }: RelayInput): BuiltRequest {
  const url = `${route.channel.baseUrl}/model/${encodeURIComponent(route.upstreamModel)}/${stream ? 'converse-stream' : 'converse'}`;
  const text = JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? BEDROCK_STREAM_CONTENT_TYPE : 'application/json',
  };
  const secret = readBedrockSecret(route.channel.apiKey);
  if (secret.kind === 'api-key') {
    headers['authorization'] = `Bearer ${secret.apiKey}`;
    return { upstream: { url, headers, body: text }, hideUsageChunk: false };
  }
  const region = regionOf(route.channel);
  return {
    upstream: {
      url,
      headers,
      body: text,
      signHeaders: () => signedHeaders({ url, headers, body: text, credential: secret.credential, region }),
    },
    hideUsageChunk: false,
  };
}

/** The channel test's request: one token, in Converse's shape (the model goes in the URL). */
export function bedrockTestRequest(): Record<string, unknown> {
  return { messages: [{ role: 'user', content: [{ text: 'ping' }] }], inferenceConfig: { maxTokens: 1 } };
}
