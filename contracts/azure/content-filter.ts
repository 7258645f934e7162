/**
 * @module contracts/azure/content-filter
 * What Azure OpenAI adds to the OpenAI wire format: the results of its content filters. A whole reply
 * and the first stream chunk carry `prompt_filter_results` (one entry per prompt); each choice carries
 * `content_filter_results`, and a filtered completion ends with `finish_reason: "content_filter"`.
 * A filtered prompt is refused with HTTP 400, `error.code: "content_filter"` and the categories in
 * `error.innererror.content_filter_result`. Schemas are loose and nullish: Azure adds categories
 * (jailbreak, protected material, custom blocklists) over time.
 * @see https://learn.microsoft.com/azure/ai-foundry/openai/concepts/content-filter
 */
import { z } from 'zod';

/** One category's verdict: a severity category (hate, sexual, violence, self_harm) or a detection. */
export const contentFilterVerdictSchema = z.looseObject({
  filtered: z.boolean().nullish(),
  severity: z.string().nullish(),
  detected: z.boolean().nullish(),
});

/** Category name → verdict; a blocklist entry is a list, hence the union. */
export const contentFilterResultSchema = z.record(z.string(), z.union([contentFilterVerdictSchema, z.unknown()]));

export const promptFilterResultsSchema = z.array(
  z.looseObject({
    prompt_index: z.number().int().nullish(),
    content_filter_results: contentFilterResultSchema.nullish(),
  }),
);

/** The error body of a prompt Azure's filters refused (HTTP 400). */
export const contentFilterErrorSchema = z.looseObject({
  error: z.looseObject({
    code: z.literal('content_filter'),
    message: z.string().nullish(),
    param: z.string().nullish(),
    innererror: z
      .looseObject({
        code: z.string().nullish(),
        content_filter_result: contentFilterResultSchema.nullish(),
      })
      .nullish(),
  }),
});

export type ContentFilterResult = z.infer<typeof contentFilterResultSchema>;
export type ContentFilterError = z.infer<typeof contentFilterErrorSchema>;
