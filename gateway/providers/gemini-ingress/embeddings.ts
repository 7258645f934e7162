/**
 * @module gateway/providers/gemini-ingress/embeddings
 * Gemini's `:embedContent` and `:batchEmbedContents` on an OpenAI-kind or Azure channel: each content's
 * text parts (joined by a newline) are one input of an OpenAI embeddings request asking for floats,
 * `outputDimensionality` its `dimensions`; the vectors come back as `embedding.values` (or one
 * `embeddings[]` entry per request), the usage as OpenAI reported it. `taskType` and `title` have no
 * OpenAI equivalent and are dropped with a warning; a content that is not text is refused, since
 * dropping it would embed something else.
 */
import type { EmbedContentRequest } from '../../../contracts/gemini/client-request.ts';
import { UpstreamCallError } from '../../errors.ts';
import type { Provider, RelayInput } from '../provider.ts';
import { withWarnings } from '../provider-extensions.ts';
import { refused } from '../read-request.ts';

type Body = Record<string, unknown>;

export function embedRequestsOf(body: Body, batch: boolean): EmbedContentRequest[] {
  return batch ? (body['requests'] as EmbedContentRequest[]) : [body as EmbedContentRequest];
}

/** The text a content embeds: its text parts joined. */
export function embeddedText(request: EmbedContentRequest): string {
  return request.content.parts.flatMap((part) => (typeof part.text === 'string' ? [part.text] : [])).join('\n');
}

function openAIBody(body: Body, batch: boolean, target: string): { body: Body; warnings: string[] } {
  const requests = embedRequestsOf(body, batch);
  const warnings: string[] = [];
  const dimensions = new Set(requests.map((request) => request.outputDimensionality));
  if (dimensions.size > 1) {
    throw refused('Every request of a batch must ask for the same outputDimensionality on this channel.', 'requests');
  }
  const input = requests.map((request, index) => {
    const param = batch ? `requests[${index}].content` : 'content';
    if (request.content.parts.some((part) => typeof part.text !== 'string')) {
      throw refused(`A ${target} channel embeds text only: ${param} holds another kind of part.`, param);
    }
    for (const field of ['taskType', 'title'] as const) {
      if (request[field] !== undefined) warnings.push(`${field} dropped: no ${target} equivalent`);
    }
    return embeddedText(request);
  });
  const [size] = dimensions;
  return { body: { input, encoding_format: 'float', ...(size !== undefined && { dimensions: size }) }, warnings };
}

function badReply(why: string): UpstreamCallError {
  return new UpstreamCallError('upstream', `The upstream provider returned an embeddings reply that ${why}.`, 502);
}

/** Gemini's embeddings served by `openAI` (the OpenAI kind's or Azure's embeddings adapter). */
export function geminiEmbeddingsOn(openAI: Provider, batch: boolean, target: string): Provider {
  const converted = (input: RelayInput) => openAIBody(input.body, batch, target);
  return {
    buildRequest(input) {
      const { body, warnings } = converted(input);
      return withWarnings(openAI.buildRequest({ ...input, body }), warnings);
    },
    readResponse(reply, input) {
      const reading = openAI.readResponse(reply, { ...input, body: converted(input).body });
      const data = ((reading.clientBody ?? reply) as { data?: Array<{ embedding?: unknown }> }).data ?? [];
      const vectors = data.map((item) => item.embedding);
      if (!vectors.every(Array.isArray)) throw badReply('holds a vector that is not a list of numbers');
      if (vectors.length !== embedRequestsOf(input.body, batch).length) throw badReply('holds too few vectors');
      const clientBody = batch
        ? { embeddings: vectors.map((values) => ({ values })) }
        : { embedding: { values: vectors[0] } };
      return { ...reading, clientBody };
    },
    createStreamRelay() {
      throw new Error('embeddings are never streamed');
    },
  };
}
