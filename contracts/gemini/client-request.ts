/**
 * @module contracts/gemini/client-request
 * Google's Gemini API as clients call the gateway with it (`POST /v1beta/models/{model}:generateContent`,
 * `:streamGenerateContent`, `:countTokens`, `:embedContent`, `:batchEmbedContents`): the envelope the
 * gateway reads of every body whichever channel serves it, and the fuller contract a converted
 * channel's reader checks. The model is in the URL and streaming in the method, never in the body.
 * Unknown fields, part kinds and tool kinds pass both: a gemini channel is their judge, and a
 * converted reader drops what has no equivalent with a warning.
 */
import { z } from 'zod';

/**
 * What the gateway reads of a generateContent body: the conversation (the prompt estimate) and the
 * generation limits its holds count (`maxOutputTokens`, times `candidateCount` replies).
 */
export const generateContentEnvelopeSchema = z.looseObject({
  contents: z.array(z.looseObject({ parts: z.array(z.unknown()).optional() })),
  generationConfig: z
    .looseObject({
      maxOutputTokens: z.number().int().min(1).optional(),
      candidateCount: z.number().int().min(1).optional(),
    })
    .optional(),
});

const blob = z.looseObject({ mimeType: z.string(), data: z.string() });

export const clientPartSchema = z.looseObject({
  text: z.string().optional(),
  inlineData: blob.optional(),
  fileData: z.looseObject({ mimeType: z.string().optional(), fileUri: z.string() }).optional(),
  functionCall: z
    .looseObject({
      id: z.string().optional(),
      name: z.string(),
      args: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  functionResponse: z
    .looseObject({
      id: z.string().optional(),
      name: z.string(),
      response: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
});

export const clientContentSchema = z.looseObject({
  /** absent means `user`, as Google reads a single-turn request */
  role: z.string().optional(),
  parts: z.array(clientPartSchema).optional(),
});

export const clientFunctionDeclarationSchema = z.looseObject({
  name: z.string().min(1, 'must name the function'),
  description: z.string().optional(),
  /** Google's OpenAPI-style schema (upper-case types) */
  parameters: z.record(z.string(), z.unknown()).optional(),
  /** a JSON schema, which newer SDKs send instead */
  parametersJsonSchema: z.record(z.string(), z.unknown()).optional(),
});

/** A tool is function declarations or one of Google's built-in tools (`googleSearch`, `codeExecution`, …). */
export const clientToolSchema = z.looseObject({
  functionDeclarations: z.array(clientFunctionDeclarationSchema).optional(),
});

export const clientGenerationConfigSchema = z.looseObject({
  temperature: z.number().optional(),
  topP: z.number().optional(),
  topK: z.number().int().optional(),
  maxOutputTokens: z.number().int().min(1).optional(),
  stopSequences: z.array(z.string()).optional(),
  candidateCount: z.number().int().min(1).optional(),
  responseMimeType: z.string().optional(),
  responseSchema: z.record(z.string(), z.unknown()).optional(),
  responseJsonSchema: z.record(z.string(), z.unknown()).optional(),
  thinkingConfig: z
    .looseObject({
      includeThoughts: z.boolean().optional(),
      thinkingBudget: z.number().int().optional(),
      /** Gemini 3's coarse setting, instead of a budget */
      thinkingLevel: z.string().optional(),
    })
    .optional(),
});

export const clientGenerateContentRequestSchema = z.looseObject({
  contents: z.array(clientContentSchema),
  systemInstruction: clientContentSchema.optional(),
  tools: z.array(clientToolSchema).optional(),
  toolConfig: z
    .looseObject({
      functionCallingConfig: z
        .looseObject({ mode: z.string().optional(), allowedFunctionNames: z.array(z.string()).optional() })
        .optional(),
    })
    .optional(),
  generationConfig: clientGenerationConfigSchema.optional(),
  cachedContent: z.string().optional(),
});

/**
 * `:countTokens` takes `contents`, or a whole `generateContentRequest` (its system prompt and tools
 * count too); the gateway reads the conversation for its own count.
 */
export const countTokensRequestSchema = z.looseObject({
  contents: z.array(z.looseObject({ parts: z.array(z.unknown()).optional() })).optional(),
  generateContentRequest: z.looseObject({ model: z.string().optional(), contents: z.array(z.unknown()) }).optional(),
});

export const embedContentRequestSchema = z.looseObject({
  /** `models/{model}`; the URL's model is the one routed by */
  model: z.string().optional(),
  content: z.looseObject({ parts: z.array(clientPartSchema) }),
  taskType: z.string().optional(),
  title: z.string().optional(),
  outputDimensionality: z.number().int().min(1).optional(),
});

export const batchEmbedContentsRequestSchema = z.looseObject({
  requests: z.array(embedContentRequestSchema).min(1, 'must hold at least one request'),
});

export type ClientPart = z.infer<typeof clientPartSchema>;
export type ClientContent = z.infer<typeof clientContentSchema>;
export type ClientTool = z.infer<typeof clientToolSchema>;
export type ClientGenerationConfig = z.infer<typeof clientGenerationConfigSchema>;
export type ClientGenerateContentRequest = z.infer<typeof clientGenerateContentRequestSchema>;
export type CountTokensRequest = z.infer<typeof countTokensRequestSchema>;
export type EmbedContentRequest = z.infer<typeof embedContentRequestSchema>;
export type BatchEmbedContentsRequest = z.infer<typeof batchEmbedContentsRequestSchema>;
