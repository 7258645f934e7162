/**
 * @module gateway/providers/azure/stream-reader
 * An Azure OpenAI chunk stream as neutral reply parts: the OpenAI reader, except for the chunk Azure
 * sends first, which holds only `prompt_filter_results` (no choices, an empty id and model, created
 * 0). Read as the reply's first chunk it would start the converted reply with no id and no model, so
 * it is skipped; the chunks after it are OpenAI's own.
 */
import { OpenAIStreamReader } from '../conversion/read-openai-stream.ts';
import type { ReplyPart } from '../conversion/reply.ts';
import type { StreamReader } from '../kinds.ts';
import type { SseEvent } from '../provider.ts';

type LooseChunk = { choices?: unknown; usage?: unknown; prompt_filter_results?: unknown };

/** True for a chunk that says only how the prompt was filtered; checked by text first, parsed only then. */
export function isPromptFilterChunk(data: string): boolean {
  if (!data.includes('"prompt_filter_results"')) return false;
  try {
    const chunk = JSON.parse(data) as LooseChunk | null;
    return (
      chunk !== null &&
      chunk.prompt_filter_results !== undefined &&
      (!Array.isArray(chunk.choices) || chunk.choices.length === 0) &&
      (chunk.usage === undefined || chunk.usage === null)
    );
  } catch {
    return false;
  }
}

export class AzureStreamReader implements StreamReader {
  readonly #reader = new OpenAIStreamReader();

  get usageRefused(): string | null {
    return this.#reader.usageRefused;
  }

  read(event: SseEvent): ReplyPart[] {
    return isPromptFilterChunk(event.data) ? [] : this.#reader.read(event);
  }
}
