/**
 * @module contracts/gemini/generate-content-request
 * The body of Google AI Studio's `POST /v1beta/models/{model}:generateContent` (and
 * `:streamGenerateContent`), as the gateway writes it for a `gemini` channel: the fields of Google's
 * API reference the neutral request can fill. The model is in the URL, never in the body.
 */
import { z } from 'zod';

/** Google's OpenAPI-style schema subset for function parameters and structured output. */
export interface GeminiSchema {
  type?: 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY' | 'OBJECT' | 'NULL';
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  enum?: string[];
  items?: GeminiSchema;
  minItems?: string;
  maxItems?: string;
  properties?: Record<string, GeminiSchema>;
  required?: string[];
  propertyOrdering?: string[];
  minProperties?: string;
  maxProperties?: string;
  minLength?: string;
  maxLength?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  anyOf?: GeminiSchema[];
  default?: unknown;
  example?: unknown;
}

export const geminiSchemaSchema: z.ZodType<GeminiSchema> = z.lazy(() =>
  z.object({
    type: z.enum(['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL']).optional(),
    format: z.string().optional(),
    title: z.string().optional(),
    description: z.string().optional(),
    nullable: z.boolean().optional(),
    enum: z.array(z.string()).optional(),
    items: geminiSchemaSchema.optional(),
    // int64 fields travel as decimal strings in Google's JSON mapping.
    minItems: z.string().optional(),
    maxItems: z.string().optional(),
    properties: z.record(z.string(), geminiSchemaSchema).optional(),
    required: z.array(z.string()).optional(),
    propertyOrdering: z.array(z.string()).optional(),
    minProperties: z.string().optional(),
    maxProperties: z.string().optional(),
    minLength: z.string().optional(),
    maxLength: z.string().optional(),
    pattern: z.string().optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    anyOf: z.array(geminiSchemaSchema).optional(),
    default: z.unknown().optional(),
    example: z.unknown().optional(),
  }),
);

/**
 * One part of a turn. `thought` marks the model's thinking; `thoughtSignature` (base64) is Google's
 * proof of the thinking behind the part that carries it, sent back unchanged on the next turn.
 */
export const geminiPartSchema = z.object({
  text: z.string().optional(),
  inlineData: z.object({ mimeType: z.string(), data: z.string() }).optional(),
  fileData: z.object({ mimeType: z.string().optional(), fileUri: z.string() }).optional(),
  functionCall: z
    .object({ id: z.string().optional(), name: z.string(), args: z.record(z.string(), z.unknown()).optional() })
    .optional(),
  functionResponse: z
    .object({ id: z.string().optional(), name: z.string(), response: z.record(z.string(), z.unknown()) })
    .optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
});

export const geminiContentSchema = z.object({
  role: z.enum(['user', 'model']).optional(),
  parts: z.array(geminiPartSchema),
});

export const geminiFunctionDeclarationSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  parameters: geminiSchemaSchema.optional(),
});

export const geminiToolConfigSchema = z.object({
  functionCallingConfig: z.object({
    mode: z.enum(['AUTO', 'ANY', 'NONE', 'VALIDATED']),
    allowedFunctionNames: z.array(z.string()).optional(),
  }),
});

export const geminiThinkingConfigSchema = z.object({
  includeThoughts: z.boolean().optional(),
  /** tokens; 0 turns thinking off where the model allows it, -1 lets the model decide */
  thinkingBudget: z.number().int().optional(),
});

export const geminiGenerationConfigSchema = z.object({
  temperature: z.number().optional(),
  topP: z.number().optional(),
  topK: z.number().int().optional(),
  maxOutputTokens: z.number().int().optional(),
  stopSequences: z.array(z.string()).optional(),
  candidateCount: z.number().int().optional(),
  responseMimeType: z.string().optional(),
  responseSchema: geminiSchemaSchema.optional(),
  thinkingConfig: geminiThinkingConfigSchema.optional(),
});

export const geminiGenerateContentRequestSchema = z.object({
  contents: z.array(geminiContentSchema),
  systemInstruction: geminiContentSchema.optional(),
  tools: z.array(z.object({ functionDeclarations: z.array(geminiFunctionDeclarationSchema) })).optional(),
  toolConfig: geminiToolConfigSchema.optional(),
  generationConfig: geminiGenerationConfigSchema.optional(),
});

export type GeminiPart = z.infer<typeof geminiPartSchema>;
export type GeminiContent = z.infer<typeof geminiContentSchema>;
export type GeminiFunctionDeclaration = z.infer<typeof geminiFunctionDeclarationSchema>;
export type GeminiToolConfig = z.infer<typeof geminiToolConfigSchema>;
export type GeminiGenerationConfig = z.infer<typeof geminiGenerationConfigSchema>;
export type GeminiGenerateContentRequest = z.infer<typeof geminiGenerateContentRequestSchema>;
