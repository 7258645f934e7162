/**
 * @module contracts/openai/responses-request
 * The body of `POST /v1/responses` (openai 6.x `ResponseCreateParams`), checked as strictly as chat
 * completions: every field the gateway reads is typed and ranged; unknown fields pass (a native
 * Responses upstream may know them). Input items of built-in tools (web search, file search, computer
 * use, …) and built-in tool definitions pass the contract: whether a channel can run them is decided
 * per channel kind (a converted channel drops them, naming them). The relay checks only the envelope
 * below before routing; a converted channel checks this whole contract.
 */
import { z } from 'zod';
import { MAX_TOOLS } from './chat-request.ts';

const functionNameSchema = z
  .string()
  .regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1 to 64 characters of a-z, A-Z, 0-9, underscore or dash');

const imageDetailSchema = z.enum(['auto', 'low', 'high', 'original']);

export const responsesInputContentSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('input_text'), text: z.string() }),
  z.looseObject({
    type: z.literal('input_image'),
    image_url: z.string().nullish(),
    file_id: z.string().nullish(),
    detail: imageDetailSchema.optional(),
  }),
  z.looseObject({
    type: z.literal('input_file'),
    file_data: z.string().optional(),
    file_id: z.string().nullish(),
    file_url: z.string().optional(),
    filename: z.string().optional(),
  }),
  /** earlier assistant output sent back as history */
  z.looseObject({ type: z.literal('output_text'), text: z.string() }),
  z.looseObject({ type: z.literal('refusal'), refusal: z.string() }),
]);

export const responsesMessageItemSchema = z.looseObject({
  type: z.literal('message').optional(),
  id: z.string().optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(responsesInputContentSchema)]),
  status: z.string().optional(),
});

export const responsesFunctionCallItemSchema = z.looseObject({
  type: z.literal('function_call'),
  id: z.string().optional(),
  call_id: z.string().min(1, 'must not be empty'),
  name: z.string().min(1, 'must name the function'),
  /** the namespace tool the function belongs to, as the reply named it */
  namespace: z.string().nullish(),
  arguments: z.string(),
  status: z.string().optional(),
});

export const responsesFunctionCallOutputItemSchema = z.looseObject({
  type: z.literal('function_call_output'),
  id: z.string().nullish(),
  call_id: z.string().min(1, 'must not be empty'),
  output: z.union([z.string(), z.array(responsesInputContentSchema)]),
  status: z.string().nullish(),
});

export const responsesReasoningItemSchema = z.looseObject({
  type: z.literal('reasoning'),
  id: z.string().optional(),
  summary: z.array(z.looseObject({ type: z.literal('summary_text'), text: z.string() })),
  content: z.array(z.looseObject({ type: z.literal('reasoning_text'), text: z.string() })).optional(),
  /** for an Anthropic channel, the thinking block's signature (or the redacted thinking's data) */
  encrypted_content: z.string().nullish(),
  status: z.string().optional(),
});

/** A call of a custom (freeform) tool, sent back as history: `input` is the text the model wrote. */
export const responsesCustomToolCallItemSchema = z.looseObject({
  type: z.literal('custom_tool_call'),
  id: z.string().optional(),
  call_id: z.string().min(1, 'must not be empty'),
  name: z.string().min(1, 'must name the tool'),
  /** the namespace tool the custom tool belongs to, as the reply named it */
  namespace: z.string().nullish(),
  input: z.string(),
  status: z.string().optional(),
});

export const responsesCustomToolCallOutputItemSchema = z.looseObject({
  type: z.literal('custom_tool_call_output'),
  id: z.string().nullish(),
  call_id: z.string().min(1, 'must not be empty'),
  output: z.union([z.string(), z.array(responsesInputContentSchema)]),
});

const readItemTypes = [
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
  'additional_tools',
];

/** Any other item type (a built-in tool's call or output, an item reference): a converted channel drops or refuses it. */
export const responsesOtherItemSchema = z.looseObject({
  type: z.string().refine((type) => !readItemTypes.includes(type)),
});

export const responsesFunctionToolSchema = z.looseObject({
  type: z.literal('function'),
  name: functionNameSchema,
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

/**
 * A custom (freeform) tool: the model calls it with text rather than JSON arguments, free or held to
 * a grammar (`lark` or `regex`) that `format` gives. Codex's `exec` is one: it takes JavaScript.
 */
export const responsesCustomToolSchema = z.looseObject({
  type: z.literal('custom'),
  name: functionNameSchema,
  description: z.string().nullish(),
  format: z
    .looseObject({ type: z.string(), syntax: z.string().optional(), definition: z.string().optional() })
    .nullish(),
});

/**
 * Function and custom tools grouped under a name (Codex's `multi_agent_v1`, `functions`): the model
 * calls them by their own name, and the call names the namespace beside it.
 */
export const responsesNamespaceToolSchema = z.looseObject({
  type: z.literal('namespace'),
  name: functionNameSchema,
  description: z.string().nullish(),
  tools: z.array(
    z.union([
      responsesFunctionToolSchema,
      responsesCustomToolSchema,
      z.looseObject({
        type: z
          .string()
          .refine((type) => type !== 'function' && type !== 'custom', 'a function or custom tool needs a valid name'),
      }),
    ]),
  ),
});

/** A built-in tool (web_search, file_search, code_interpreter, …), run by OpenAI itself. */
export const responsesBuiltInToolSchema = z.looseObject({
  type: z
    .string()
    .refine(
      (type) => type !== 'function' && type !== 'namespace' && type !== 'custom',
      'a function, custom or namespace tool needs a valid name',
    ),
});

export const responsesToolSchema = z.union([
  responsesFunctionToolSchema,
  responsesCustomToolSchema,
  responsesNamespaceToolSchema,
  responsesBuiltInToolSchema,
]);

/**
 * Tools offered from a point of the conversation on, as Codex offers all of its own with its default
 * model (it then sends no `tools`).
 */
export const responsesAdditionalToolsItemSchema = z.looseObject({
  type: z.literal('additional_tools'),
  id: z.string().nullish(),
  role: z.string().optional(),
  tools: z.array(responsesToolSchema).max(MAX_TOOLS),
});

export const responsesInputItemSchema = z.union([
  responsesMessageItemSchema,
  responsesFunctionCallItemSchema,
  responsesFunctionCallOutputItemSchema,
  responsesCustomToolCallItemSchema,
  responsesCustomToolCallOutputItemSchema,
  responsesReasoningItemSchema,
  responsesAdditionalToolsItemSchema,
  responsesOtherItemSchema,
]);

export const responsesToolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), name: functionNameSchema, namespace: z.string().nullish() }),
  z.looseObject({ type: z.literal('custom'), name: functionNameSchema, namespace: z.string().nullish() }),
  /** a built-in tool forced by type, or `allowed_tools`: for native upstreams */
  z.looseObject({ type: z.string() }),
]);

export const responsesTextFormatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    name: functionNameSchema,
    schema: z.record(z.string(), z.unknown()),
    description: z.string().optional(),
    strict: z.boolean().nullish(),
  }),
]);

export const responsesReasoningEffortSchema = z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']);

export const responsesRequestSchema = z.looseObject({
  model: z.string().min(1, 'must name a model'),
  input: z.union([z.string(), z.array(responsesInputItemSchema)]).optional(),
  instructions: z.string().nullish(),
  tools: z.array(responsesToolSchema).max(MAX_TOOLS).nullish(),
  tool_choice: responsesToolChoiceSchema.optional(),
  parallel_tool_calls: z.boolean().nullish(),
  max_output_tokens: z.number().int().min(1).nullish(),
  /** default 1 */
  temperature: z.number().min(0).max(2).nullish(),
  /** default 1 */
  top_p: z.number().min(0).max(1).nullish(),
  reasoning: z
    .looseObject({
      effort: responsesReasoningEffortSchema.nullish(),
      summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
    })
    .nullish(),
  text: z.looseObject({ format: responsesTextFormatSchema.optional() }).nullish(),
  metadata: z.record(z.string().max(64), z.string().max(512)).nullish(),
  stream: z.boolean().nullish(),
  /** default true */
  store: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
  user: z.string().optional(),
});

/**
 * What the gateway itself reads of every `/v1/responses` body, whichever channel serves it: the model
 * it routes by, `stream`, `store` and `previous_response_id` (it keeps and continues conversations),
 * `max_output_tokens` (the quota and budget holds count it) and input items it can walk. A native
 * Responses channel receives everything else as the client wrote it and is the judge of it (new
 * tool types, items and fields); a converted channel checks the whole contract above before reading.
 */
export const responsesEnvelopeSchema = z.looseObject({
  model: z.string().min(1, 'must name a model'),
  input: z.union([z.string(), z.array(z.looseObject({}))]).optional(),
  stream: z.boolean().nullish(),
  store: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
  max_output_tokens: z.number().int().min(1).nullish(),
});

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;
export type ResponsesInputItem = z.infer<typeof responsesInputItemSchema>;
export type ResponsesInputContent = z.infer<typeof responsesInputContentSchema>;
export type ResponsesTool = z.infer<typeof responsesToolSchema>;
