/**
 * @module gateway/providers/gemini-ingress/generate-providers
 * Gemini's `generateContent` and `streamGenerateContent` on a channel of any kind whose format is not
 * Gemini's: the request read by read-generate-request.ts (the model from the URL, streaming from the
 * method), the reply written as a `GenerateContentResponse` or its SSE events. A gemini channel
 * relays the body as written instead (gemini/pass-through.ts).
 */
import { clientGenerateContentRequestSchema } from '../../../contracts/gemini/client-request.ts';
import { convertingProvider, type IngressFormat } from '../converting-provider.ts';
import type { UpstreamKind } from '../kinds.ts';
import type { Provider } from '../provider.ts';
import { checkedBody } from '../read-request.ts';
import { readGenerateRequest } from './read-generate-request.ts';
import { writeGenerateReply } from './write-generate-reply.ts';
import { GenerateStreamWriter } from './write-generate-stream.ts';
import { includesThoughts } from './write-usage.ts';

export const generateContentFormat: IngressFormat = {
  read: (body, target, { model, stream }) =>
    readGenerateRequest(checkedBody(clientGenerateContentRequestSchema, body), { target, model, stream }),
  // Gemini clients send no headers another kind reads.
  passHeaders: false,
  writeReply: (reply, body) => writeGenerateReply(reply, body),
  createStreamWriter: ({ body }) => new GenerateStreamWriter({ includeThoughts: includesThoughts(body) }),
};

/** `:generateContent` on a channel of `kind`; `target` names the kind in warnings. */
export function generateContentOn(kind: UpstreamKind, target: string): Provider {
  return convertingProvider(generateContentFormat, kind, target);
}
