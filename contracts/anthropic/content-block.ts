/**
 * @module contracts/anthropic/content-block
 * Anthropic Messages content blocks, as requests carry them. Known block types are checked; block
 * types Anthropic adds later pass through untouched so a same-format relay never refuses them.
 */
import { z } from 'zod';

export const cacheControlSchema = z.looseObject({ type: z.string(), ttl: z.string().optional() });
const cacheControl = cacheControlSchema.nullish();

export const imageMediaTypeSchema = z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

export const textBlockSchema = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
  cache_control: cacheControl,
});

export const imageSourceSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('base64'), media_type: imageMediaTypeSchema, data: z.string().min(1) }),
  z.looseObject({ type: z.literal('url'), url: z.string().min(1) }),
  z.looseObject({ type: z.literal('file'), file_id: z.string().min(1) }),
]);

export const imageBlockSchema = z.looseObject({
  type: z.literal('image'),
  source: imageSourceSchema,
  cache_control: cacheControl,
});

export const toolUseBlockSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  cache_control: cacheControl,
});

export const thinkingBlockSchema = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string(),
});

export const redactedThinkingBlockSchema = z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() });

/** Sources are checked loosely (Anthropic adds kinds): base64 and text carry `data`, url a `url`. */
export const documentBlockSchema = z.looseObject({
  type: z.literal('document'),
  source: z.looseObject({
    type: z.string().optional(),
    media_type: z.string().optional(),
    data: z.string().optional(),
    url: z.string().optional(),
  }),
  title: z.string().nullish(),
  cache_control: cacheControl,
});

const resultItemTypes = new Set(['text', 'image', 'document']);

/** What a tool result's content may hold that this contract checks: text, images and documents. */
export const knownResultItemSchema = z.discriminatedUnion('type', [
  textBlockSchema,
  imageBlockSchema,
  documentBlockSchema,
]);

export const toolResultBlockSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z
    .union([
      z.string(),
      z.array(
        z.union([
          knownResultItemSchema,
          z.looseObject({ type: z.string().refine((type) => !resultItemTypes.has(type)) }),
        ]),
      ),
    ])
    .optional(),
  is_error: z.boolean().optional(),
  cache_control: cacheControl,
});

const knownBlockTypes = new Set([
  'text',
  'image',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'document',
]);

/** A block type this gateway does not know yet (server tools, search results, …): relayed as is. */
export const otherBlockSchema = z.looseObject({
  type: z.string().refine((type) => !knownBlockTypes.has(type)),
});

export const knownContentBlockSchema = z.discriminatedUnion('type', [
  textBlockSchema,
  imageBlockSchema,
  toolUseBlockSchema,
  toolResultBlockSchema,
  thinkingBlockSchema,
  redactedThinkingBlockSchema,
  documentBlockSchema,
]);

export const contentBlockParamSchema = z.union([knownContentBlockSchema, otherBlockSchema]);

export type ContentBlockParam = z.infer<typeof contentBlockParamSchema>;
export type KnownContentBlock = z.infer<typeof knownContentBlockSchema>;
export type CacheControl = z.infer<typeof cacheControlSchema>;

export type KnownResultItem = z.infer<typeof knownResultItemSchema>;

/** A validated tool-result item of a type this contract checks: its fields have the types above. */
export function isKnownResultItem(item: { type: string }): item is KnownResultItem {
  return resultItemTypes.has(item.type);
}

/** A validated block of a type this contract checks: its fields have the types above. */
export function isKnownBlock(block: { type: string }): block is KnownContentBlock {
  return knownBlockTypes.has(block.type);
}
