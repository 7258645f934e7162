/**
 * @module gateway/providers/gemini/kind
 * The `gemini` channel kind: Google AI Studio's Gemini API (v1beta `generateContent`). Thinking
 * comes back with signatures that Gemini verifies when they are sent back. Gemini clients' own
 * generateContent calls are relayed as written (pass-through.ts).
 */
import type { GeminiGenerateContentResponse } from '../../../contracts/gemini/generate-content-response.ts';
import type { UpstreamKind } from '../kinds.ts';
import { geminiPassThrough } from './pass-through.ts';
import { readGeminiReply } from './read-reply.ts';
import { GeminiStreamReader } from './read-stream.ts';
import { buildGeminiRequest } from './request.ts';
import { writeGeminiRequest } from './write-request.ts';

export const DEFAULT_GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';

export const geminiKind: UpstreamKind = {
  label: 'Gemini',
  passThrough: { 'gemini.generateContent': geminiPassThrough },
  writeRequest: writeGeminiRequest,
  readReply: (body) => readGeminiReply((body ?? {}) as Partial<GeminiGenerateContentResponse>),
  createStreamReader: () => new GeminiStreamReader(),
  buildRequest: buildGeminiRequest,
  testRequest: () => ({
    contents: [{ role: 'user', parts: [{ text: 'ping' }] }],
    generationConfig: { maxOutputTokens: 1 },
  }),
  // `streamGenerateContent?alt=sse` is always typed text/event-stream; anything else is not Gemini.
  capabilities: { signedThinking: true, nativeResponses: false, eventStreamTypeOnly: true },
};
