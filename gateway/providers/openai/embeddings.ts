/**
 * @module gateway/providers/openai/embeddings
 * `POST /v1/embeddings` on an OpenAI-kind channel (`${base_url}/embeddings`). The request goes as the
 * client wrote it, with the channel's model name. The reply's bytes go through untouched when they
 * are in the encoding the client asked for; when the upstream answered the other one (servers that
 * always answer floats), the vectors are converted. Usage is the prompt's tokens, nothing generated.
 */
import type { EncodingFormat } from '../../../contracts/openai/embeddings-request.ts';
import { UpstreamCallError } from '../../errors.ts';
import type { BuiltRequest, Provider, RelayInput, ResponseReading, TokenCounts } from '../provider.ts';
import { firstBadCount, isTokenCount, refuseUsage, type UsageRefusalNote } from '../usage-check.ts';
import { base64ToFloats, floatsToBase64 } from './embedding-encoding.ts';

type LooseItem = { embedding?: unknown } & Record<string, unknown>;
type LooseReply = { data?: unknown; model?: unknown; usage?: unknown } & Record<string, unknown>;

function buildEmbeddingsRequest({ route, body }: RelayInput): BuiltRequest {
  return {
    upstream: {
      url: `${route.channel.baseUrl}/embeddings`,
      headers: {
        authorization: `Bearer ${route.channel.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ ...body, model: route.upstreamModel }),
    },
    hideUsageChunk: false,
  };
}

function badReply(why: string): UpstreamCallError {
  return new UpstreamCallError('upstream', `The upstream provider returned an embeddings reply that ${why}.`, 502);
}

/** The prompt tokens of an embeddings `usage`; null when absent or not believed (then `note` says why). */
export function tokenCountsFromEmbeddings(usage: unknown, note?: UsageRefusalNote): TokenCounts | null {
  if (usage === null || usage === undefined) return null;
  if (typeof usage !== 'object' || Array.isArray(usage)) return refuseUsage(note, 'usage was not an object');
  const promptTokens: unknown = (usage as { prompt_tokens?: unknown }).prompt_tokens;
  if (promptTokens === null || promptTokens === undefined) return refuseUsage(note, 'usage had no prompt_tokens');
  if (!isTokenCount(promptTokens)) {
    return refuseUsage(note, firstBadCount({ prompt_tokens: promptTokens }) ?? 'usage was not usable');
  }
  return { promptTokens, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
}

/** The item's vector in `wanted`; the item itself when it already is. */
function encoded(item: LooseItem, wanted: EncodingFormat, index: number): LooseItem {
  const vector = item.embedding;
  if (wanted === 'base64') {
    if (typeof vector === 'string') return item;
    const text = Array.isArray(vector) ? floatsToBase64(vector) : null;
    if (text === null) throw badReply(`holds a vector that is not a list of numbers (data[${index}])`);
    return { ...item, embedding: text };
  }
  if (Array.isArray(vector)) return item;
  const floats = typeof vector === 'string' ? base64ToFloats(vector) : null;
  if (floats === null) throw badReply(`holds a vector that is neither floats nor base64 float32 (data[${index}])`);
  return { ...item, embedding: floats };
}

function needsConversion(data: readonly unknown[], wanted: EncodingFormat): boolean {
  for (const item of data) {
    const vector = (item as LooseItem | null)?.embedding;
    if (wanted === 'base64' ? typeof vector !== 'string' : !Array.isArray(vector)) return true;
  }
  return false;
}

export const openAIEmbeddingsProvider: Provider = {
  buildRequest: buildEmbeddingsRequest,
  readResponse(body, input) {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badReply('is not a JSON object');
    const reply = body as LooseReply;
    if (!Array.isArray(reply.data)) throw badReply('has no `data` list');
    const data: unknown[] = reply.data;
    if (data.some((item) => typeof item !== 'object' || item === null || Array.isArray(item))) {
      throw badReply('holds an entry in `data` that is not an object');
    }
    const wanted: EncodingFormat = input.body['encoding_format'] === 'base64' ? 'base64' : 'float';
    const reading: ResponseReading = {
      usage: null,
      model: typeof reply.model === 'string' ? reply.model : null,
      completionText: '',
    };
    reading.usage = tokenCountsFromEmbeddings(reply.usage, reading);
    if (needsConversion(data, wanted)) {
      reading.clientBody = { ...reply, data: data.map((item, index) => encoded(item as LooseItem, wanted, index)) };
    }
    return reading;
  },
  createStreamRelay() {
    // The contract has no `stream` field, so the relay never asks for one.
    throw new Error('embeddings are never streamed');
  },
};
