/**
 * @module gateway/providers/azure/content-filter
 * Azure's content-filter results in words a client can act on: which categories the filter flagged,
 * and how severe it judged each. Read from a 400 that refused the prompt; the body is the upstream's,
 * so only the fields the contract names are read, and only when they have the expected shapes.
 */
import {
  type ContentFilterResult,
  contentFilterErrorSchema,
  contentFilterVerdictSchema,
} from '../../../contracts/azure/content-filter.ts';

/** Category names are Azure's and finite; anything longer is not one and is left out. */
const MAX_CATEGORY_LENGTH = 64;

/** `hate (high), jailbreak`: the categories that were filtered, each with its severity when it has one. */
export function flaggedCategories(result: ContentFilterResult | null | undefined): string[] {
  if (!result) return [];
  const flagged: string[] = [];
  for (const [category, value] of Object.entries(result)) {
    const verdict = contentFilterVerdictSchema.safeParse(value);
    if (!verdict.success || verdict.data.filtered !== true || category.length > MAX_CATEGORY_LENGTH) continue;
    const severity = verdict.data.severity;
    const shown = typeof severity === 'string' && /^[a-z_]{1,16}$/.test(severity) ? ` (${severity})` : '';
    flagged.push(`${category}${shown}`);
  }
  return flagged;
}

export interface ContentFilterRefusal {
  /** one sentence naming the flagged categories, or saying none were named */
  detail: string;
  /** the request field Azure named (`prompt`), when it named one */
  param: string | null;
}

/** The refusal an upstream's error body describes, when it is Azure's content filter; else null. */
export function contentFilterRefusal(body: unknown): ContentFilterRefusal | null {
  const parsed = contentFilterErrorSchema.safeParse(body);
  if (!parsed.success) return null;
  const { innererror, param } = parsed.data.error;
  const flagged = flaggedCategories(innererror?.content_filter_result);
  return {
    detail:
      flagged.length > 0
        ? `Azure's content filter flagged the prompt: ${flagged.join(', ')}.`
        : "Azure's content filter refused the prompt.",
    param: typeof param === 'string' && param.length <= MAX_CATEGORY_LENGTH ? param : null,
  };
}
